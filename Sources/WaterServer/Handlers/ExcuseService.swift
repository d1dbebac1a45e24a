import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Excuses`: days a member is excused from the board (sick, travelling), their own
/// or, for those who may act for another member, that member's.
struct ExcuseService: Service {
    let archives: ArchiveAccess

    func register(in router: inout Router) {
        router.onLoop(.member, excuse, unexcuse)
        router.onLoop(.admin, excuseHousehold)
    }

    func excuse(_ request: WaterV1.ExcuseDaysRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ExcuseDaysResponse
    {
        let dates = try range(request.fromDate, request.toDate)
        let archive = try archives.archive(of: archives.actingFor(call, request.forMember))
        return WaterV1.ExcuseDaysResponse(
            days: try commit(archive, dates, call) { water, today throws(DomainError) in
                try water.validateExcuse(dates, reason: request.reason, today: today)
            })
    }

    /// The same days for every member (the family on holiday): checked for everyone before
    /// anything is written, so one member's 15th day in 28 refuses the whole call.
    func excuseHousehold(_ request: WaterV1.ExcuseHouseholdRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ExcuseHouseholdResponse
    {
        let dates = try range(request.fromDate, request.toDate)
        let decide = { (water: WaterDiary, today: LocalDate) throws(DomainError) -> [WaterMutation] in
            try water.validateExcuse(dates, reason: request.reason, today: today)
        }
        let members = try archives.read(archives.accounts) { book in
            book.accounts.values.sorted { $0.username < $1.username }
        }
        var archivesOfMembers: [(username: String, archive: Archive<MemberArchive>)] = []
        for account in members {
            guard let archive = archives.store.member(account.id) else {
                throw WaterError(
                    .internal, "\(account.username)'s archive is missing; ask an admin to run water-server check")
            }
            do throws(WaterError) {
                _ = try archives.read(archive) { member in
                    try decide(member.water, member.water.today(atUnixMilliseconds: call.now))
                }
            } catch {
                throw WaterError(error.code, "for \(account.username): \(error.message)", violations: error.violations)
            }
            archivesOfMembers.append((account.username, archive))
        }
        var done: [WaterV1.MemberDays] = []
        for (username, archive) in archivesOfMembers {
            do throws(WaterError) {
                done.append(WaterV1.MemberDays(username: username, days: try commit(archive, dates, call, decide)))
            } catch {
                // Changed since it was checked (an import ran meanwhile): say whose were excused.
                let written =
                    done.isEmpty
                    ? "nobody's days were excused" : "excused for \(done.map(\.username).joined(separator: ", ")) only"
                throw WaterError(
                    error.code, "for \(username): \(error.message) (\(written))", violations: error.violations)
            }
        }
        return WaterV1.ExcuseHouseholdResponse(members: done)
    }

    /// The days from `fromText` to `toText` (empty: `fromText` alone), at most 14: more can
    /// never be excused at once, so a longer range is refused before it is built.
    private func range(_ fromText: String, _ toText: String) throws(WaterError) -> [LocalDate] {
        let from = try day(fromText, field: "from_date")
        let to = toText.isEmpty ? from : try day(toText, field: "to_date")
        guard from <= to else { throw WaterError.invalidField("to_date", "\(to) is before \(from)") }
        guard from.days(to: to) < WaterDiary.maximumExcusedDays else {
            throw WaterError.invalidField(
                "days",
                "at most \(WaterDiary.maximumExcusedDays) days can be excused in any \(WaterDiary.excuseWindowDays); "
                    + "\(from) to \(to) is \(from.days(to: to) + 1)")
        }
        return (0...from.days(to: to)).map { from.adding(days: $0) }
    }

    func unexcuse(_ request: WaterV1.UnexcuseDaysRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.UnexcuseDaysResponse
    {
        guard request.dates.count <= WaterDiary.excuseWindowDays else {
            throw WaterError.invalidField("dates", "at most \(WaterDiary.excuseWindowDays) days at once")
        }
        var dates: [LocalDate] = []
        for text in request.dates { dates.append(try day(text, field: "dates")) }
        let archive = try archives.archive(of: archives.actingFor(call, request.forMember))
        return WaterV1.UnexcuseDaysResponse(
            days: try commit(archive, dates, call) { water, today throws(DomainError) in
                try water.validateUnexcuse(dates, today: today)
            })
    }

    /// Writes what `decide` makes of the member's diary and answers with `dates` after it.
    private func commit(
        _ archive: Archive<MemberArchive>, _ dates: [LocalDate], _ call: CallContext,
        _ decide: (WaterDiary, LocalDate) throws(DomainError) -> [WaterMutation]
    ) throws(WaterError) -> [WaterV1.DaySummary] {
        try archives.commitReturning(
            for: call,
            archive,
            { member in
                Decision(try decide(member.water, member.water.today(atUnixMilliseconds: call.now)).map { .water($0) })
            },
            result: { member, _ in Set(dates).sorted().map { Wire.day(member.water.day($0)) } })
    }
}
