import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Excuses`: days a member is excused from the board (sick, travelling), their own
/// or, for those who may act for another member, that member's.
struct ExcuseService: Service {
    let archives: ArchiveAccess

    func register(in router: inout Router) {
        router.onLoop(.member, excuse)
        router.onLoop(.member, unexcuse)
    }

    func excuse(_ request: WaterV1.ExcuseDaysRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ExcuseDaysResponse
    {
        let from = try day(request.fromDate, field: "from_date")
        let to = request.toDate.isEmpty ? from : try day(request.toDate, field: "to_date")
        guard from <= to else { throw WaterError.invalidField("to_date", "\(to) is before \(from)") }
        // More than 14 days can never be excused at once; refused before a long range is built.
        guard from.days(to: to) < WaterDiary.maximumExcusedDays else {
            throw WaterError.invalidField(
                "days",
                "at most \(WaterDiary.maximumExcusedDays) days can be excused in any \(WaterDiary.excuseWindowDays); "
                    + "\(from) to \(to) is \(from.days(to: to) + 1)")
        }
        let dates = (0...from.days(to: to)).map { from.adding(days: $0) }
        let archive = try archives.archive(of: archives.actingFor(call, request.forMember))
        return WaterV1.ExcuseDaysResponse(
            days: try commit(archive, dates, call) { water, today throws(DomainError) in
                try water.validateExcuse(dates, reason: request.reason, today: today)
            })
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
