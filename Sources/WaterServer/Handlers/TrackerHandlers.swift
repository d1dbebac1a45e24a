import WaterCore
import WaterProtocol

extension Router {
    /// `water.v1.Tracker`: the caller's own water diary. No request can name another member:
    /// the archive is always the caller's.
    mutating func registerTracker() {
        unary(WaterV1.LogWaterRequest.self, .member) { request, context, reply in
            let id: RecordID
            do throws(WaterError) { id = try recordID(request.entryID, field: "entry_id") } catch {
                return reply(.failure(error))
            }
            var outcome: LogDecision?
            context.commitOwn(
                { archive in
                    let decision = try archive.water.validateLog(
                        id: id, amountMillilitres: request.amountMl == 0 ? nil : request.amountMl,
                        unixMilliseconds: request.atUnixMs == 0 ? nil : request.atUnixMs, now: context.now)
                    outcome = decision
                    guard case .log(let mutation) = decision else { return [] }
                    return [.water(mutation)]
                },
                result: { archive in
                    let entry = archive.water.entry(id)!
                    var duplicate = false
                    if case .duplicate = outcome { duplicate = true }
                    return WaterV1.LogWaterResponse(
                        entry: Wire.entry(entry, in: archive.water),
                        day: Wire.day(archive.water.day(archive.water.date(of: entry))),
                        duplicate: duplicate)
                }, reply: reply)
        }

        unary(WaterV1.EditWaterRequest.self, .member) { request, context, reply in
            let id: RecordID
            do throws(WaterError) { id = try recordID(request.entryID, field: "entry_id") } catch {
                return reply(.failure(error))
            }
            var before: LocalDate?
            context.commitOwn(
                { archive in
                    before = archive.water.entry(id).map(archive.water.date)
                    return [
                        .water(
                            try archive.water.validateEdit(
                                id: id, amountMillilitres: request.amountMl == 0 ? nil : request.amountMl,
                                unixMilliseconds: request.atUnixMs == 0 ? nil : request.atUnixMs, now: context.now))
                    ]
                },
                result: { archive in
                    let entry = archive.water.entry(id)!
                    let after = archive.water.date(of: entry)
                    let dates = before.map { $0 == after ? [after] : [$0, after] } ?? [after]
                    return WaterV1.EditWaterResponse(
                        entry: Wire.entry(entry, in: archive.water),
                        days: dates.map { Wire.day(archive.water.day($0)) })
                }, reply: reply)
        }

        unary(WaterV1.DeleteWaterRequest.self, .member) { request, context, reply in
            let id: RecordID
            do throws(WaterError) { id = try recordID(request.entryID, field: "entry_id") } catch {
                return reply(.failure(error))
            }
            deleteEntry(context, reply: reply, respond: WaterV1.DeleteWaterResponse.init) { water in
                try water.validateDelete(id: id)
            }
        }

        unary(WaterV1.UndoWaterRequest.self, .member) { _, context, reply in
            deleteEntry(context, reply: reply, respond: WaterV1.UndoWaterResponse.init) { water in
                try water.validateUndo()
            }
        }

        immediate(WaterV1.GetTodayRequest.self, .member) { _, context throws(WaterError) in
            try context.read(try context.ownArchive()) { archive in
                let today = archive.water.today(atUnixMilliseconds: context.now)
                return WaterV1.GetTodayResponse(
                    day: Wire.day(archive.water.day(today)),
                    entries: archive.water.entries(on: today).map { Wire.entry($0, in: archive.water) },
                    settings: Wire.settings(archive.water))
            }
        }

        immediate(WaterV1.GetHistoryRequest.self, .member) { request, context throws(WaterError) in
            guard (1...366).contains(request.days) else {
                throw WaterError.invalidField("days", "must be between 1 and 366, got \(request.days)")
            }
            return try context.read(try context.ownArchive()) { archive in
                let today = archive.water.today(atUnixMilliseconds: context.now)
                return WaterV1.GetHistoryResponse(
                    days: archive.water.days(count: Int(request.days), endingOn: today).map(Wire.day))
            }
        }

        unary(WaterV1.SetGoalRequest.self, .member) { request, context, reply in
            context.commitOwn(
                { archive in
                    [.water(try archive.water.validateGoal(request.dailyGoalMl, now: context.now))]
                },
                result: { archive in
                    WaterV1.SetGoalResponse(
                        settings: Wire.settings(archive.water),
                        today: Wire.day(archive.water.day(archive.water.today(atUnixMilliseconds: context.now))))
                }, reply: reply)
        }

        unary(WaterV1.SetUsualCupRequest.self, .member) { request, context, reply in
            context.commitOwn(
                { archive in
                    [.water(try archive.water.validateUsualCup(request.usualCupMl))]
                },
                result: { archive in
                    WaterV1.SetUsualCupResponse(settings: Wire.settings(archive.water))
                }, reply: reply)
        }

        immediate(WaterV1.GetSettingsRequest.self, .member) { _, context throws(WaterError) in
            WaterV1.GetSettingsResponse(
                settings: try context.read(try context.ownArchive()) { Wire.settings($0.water) })
        }
    }
}

/// Deletes the entry `decide` picks, answering with that entry and its day afterwards.
private func deleteEntry<Response: ProtoMessage>(
    _ context: CallContext, reply: @escaping @Sendable (Result<Response, WaterError>) -> Void,
    respond: @escaping (WaterV1.WaterEntry?, WaterV1.DaySummary?) -> Response,
    decide: @escaping (WaterDiary) throws -> WaterMutation
) {
    var removed: (entry: WaterV1.WaterEntry, date: LocalDate)?
    context.commitOwn(
        { archive in
            let mutation = try decide(archive.water)
            if case .deleted(let id) = mutation, let entry = archive.water.entry(id) {
                removed = (Wire.entry(entry, in: archive.water), archive.water.date(of: entry))
            }
            return [.water(mutation)]
        },
        result: { archive in
            respond(removed?.entry, removed.map { Wire.day(archive.water.day($0.date)) })
        }, reply: reply)
}
