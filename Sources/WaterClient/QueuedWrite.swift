import WaterCodec
import WaterCore
import WaterProtocol

/// A write the member made while the server could not be reached, as the outbox keeps it: one
/// case a kind, each holding the request that makes it. Everything that differs between kinds
/// (how it is stored, made for later, sent, shown and counted in a day) is here, once.
public enum QueuedWrite: Sendable, Hashable {
    case log(WaterV1.LogWaterRequest)
    case edit(WaterV1.EditWaterRequest)
    case remove(WaterV1.DeleteWaterRequest)
    case habitCheck(WaterV1.CheckHabitRequest)
    case habitUncheck(WaterV1.UncheckHabitRequest)
    case todoAdd(WaterV1.AddTodoRequest)
    /// `todo done` and `todo undone`: the request says which.
    case todoDone(WaterV1.SetTodoDoneRequest)
    /// `todo skip`: it names the occurrence, so sending it twice skips one.
    case todoSkip(WaterV1.SkipTodoRequest)
    /// Excused days: they set final values, so sending one twice changes nothing.
    case excuse(WaterV1.ExcuseDaysRequest)
    case unexcuse(WaterV1.UnexcuseDaysRequest)
    /// `privacy full|percent|hidden`: setting a level twice is the same as once.
    case privacy(WaterV1.SetPrivacyRequest)
    /// `remind ...`: the fields of the member's reminders it names (the rest stay the server's);
    /// setting them twice is the same as once.
    case reminders(WaterV1.SetRemindersRequest)

    /// The kind the outbox file names.
    public var kind: Outbox.Kind {
        switch self {
        case .log: .log
        case .edit: .edit
        case .remove: .remove
        case .habitCheck: .habitCheck
        case .habitUncheck: .habitUncheck
        case .todoAdd: .todoAdd
        case .todoDone(let request): request.done ? .todoDone : .todoUndone
        case .todoSkip: .todoSkip
        case .excuse: .excuse
        case .unexcuse: .unexcuse
        case .privacy: .privacy
        case .reminders: .reminders
        }
    }

    /// Made with `for_member`: acting for someone else, so none of the caller's own figures.
    public var isForAnotherMember: Bool {
        switch self {
        case .log(let request): !request.forMember.isEmpty
        case .edit(let request): !request.forMember.isEmpty
        case .remove(let request): !request.forMember.isEmpty
        case .habitCheck(let request): !request.forMember.isEmpty
        case .habitUncheck(let request): !request.forMember.isEmpty
        case .excuse(let request): !request.forMember.isEmpty
        case .unexcuse(let request): !request.forMember.isEmpty
        case .privacy(let request): !request.forMember.isEmpty
        case .reminders(let request): !request.forMember.isEmpty
        case .todoAdd, .todoDone, .todoSkip: false
        }
    }

    /// The request, whichever its type.
    public var message: any ProtoMessage {
        switch self {
        case .log(let request): request
        case .edit(let request): request
        case .remove(let request): request
        case .habitCheck(let request): request
        case .habitUncheck(let request): request
        case .todoAdd(let request): request
        case .todoDone(let request): request
        case .todoSkip(let request): request
        case .excuse(let request): request
        case .unexcuse(let request): request
        case .privacy(let request): request
        case .reminders(let request): request
        }
    }

    /// The request, protobuf-encoded, as the outbox file keeps it.
    public var serializedRequest: [UInt8] { message.serializedBytes() }

    /// The write an outbox file holds; nil when its request does not decode as its kind's.
    public init?(kind: Outbox.Kind, serializedRequest bytes: [UInt8]) {
        do throws(DecodeError) {
            switch kind {
            case .log: self = .log(try WaterV1.LogWaterRequest(serializedBytes: bytes))
            case .edit: self = .edit(try WaterV1.EditWaterRequest(serializedBytes: bytes))
            case .remove: self = .remove(try WaterV1.DeleteWaterRequest(serializedBytes: bytes))
            case .habitCheck: self = .habitCheck(try WaterV1.CheckHabitRequest(serializedBytes: bytes))
            case .habitUncheck: self = .habitUncheck(try WaterV1.UncheckHabitRequest(serializedBytes: bytes))
            case .todoAdd: self = .todoAdd(try WaterV1.AddTodoRequest(serializedBytes: bytes))
            case .todoDone, .todoUndone:
                let request = try WaterV1.SetTodoDoneRequest(serializedBytes: bytes)
                guard request.done == (kind == .todoDone) else { return nil }
                self = .todoDone(request)
            case .todoSkip: self = .todoSkip(try WaterV1.SkipTodoRequest(serializedBytes: bytes))
            case .excuse: self = .excuse(try WaterV1.ExcuseDaysRequest(serializedBytes: bytes))
            case .unexcuse: self = .unexcuse(try WaterV1.UnexcuseDaysRequest(serializedBytes: bytes))
            case .privacy: self = .privacy(try WaterV1.SetPrivacyRequest(serializedBytes: bytes))
            case .reminders: self = .reminders(try WaterV1.SetRemindersRequest(serializedBytes: bytes))
            }
        } catch {
            return nil
        }
    }

    /// The write as it is kept for later: what the server would have filled in at the moment of
    /// the command is fixed now, as typed. "Now" is `now` (not the moment it is sent), "today"
    /// is the day of `now` in `zone`, and the usual cup is the one this computer last heard of.
    public func keptForLater(now: Int64, zone: MemberTimeZone, usualCupMl: Int32) -> QueuedWrite {
        let today = zone.date(atUnixMilliseconds: now).description
        switch self {
        case .log(var request):
            if request.atUnixMs == 0 { request.atUnixMs = now }
            // The usual cup known here is the caller's: one for another member is theirs, the server's.
            if request.amountMl == 0 && usualCupMl != 0 && request.forMember.isEmpty { request.amountMl = usualCupMl }
            return .log(request)
        case .habitCheck(var request):
            if request.date.isEmpty { request.date = today }
            return .habitCheck(request)
        case .habitUncheck(var request):
            if request.date.isEmpty { request.date = today }
            return .habitUncheck(request)
        case .edit, .remove, .todoAdd, .todoDone, .todoSkip, .excuse, .unexcuse, .privacy, .reminders:
            return self
        }
    }

    /// Sends the write; what the reply says of today's drinks goes into `cache`.
    /// - Throws: the server's refusal, or `unavailable` when it could not be reached. A removal of
    ///   a drink that is already gone is what it asked for (perhaps it was sent once before a
    ///   crash) and does not throw.
    public func send(with client: WaterClient, into cache: inout StatusCache, now: Int64) throws(WaterError) {
        switch self {
        // The cache holds the caller's own figures: a write for another member (for_member)
        // leaves it as it is.
        case .log(let request):
            let response = try client.call(request)
            guard request.forMember.isEmpty else { return }
            cache.record(day: response.day, now: now)
            response.entry.map { cache.record(entry: $0, now: now) }
        case .edit(let request):
            let response = try client.call(request)
            guard request.forMember.isEmpty else { return }
            response.days.forEach { cache.record(day: $0, now: now) }
            response.entry.map { cache.record(entry: $0, now: now) }
        case .remove(let request):
            do throws(WaterError) {
                let day = try client.call(request).day
                if request.forMember.isEmpty { cache.record(day: day, now: now) }
            } catch {
                guard error.code == .notFound else { throw error }
            }
            if request.forMember.isEmpty { cache.forget(entryID: request.entryID) }
        case .habitCheck(let request): _ = try client.call(request)
        case .habitUncheck(let request): _ = try client.call(request)
        case .todoAdd(let request): _ = try client.call(request)
        case .todoDone(let request): _ = try client.call(request)
        case .todoSkip(let request): _ = try client.call(request)
        case .excuse(let request): try client.call(request).days.forEach { cache.record(day: $0, now: now) }
        case .unexcuse(let request): try client.call(request).days.forEach { cache.record(day: $0, now: now) }
        case .privacy(let request): _ = try client.call(request)
        case .reminders(let request): _ = try client.call(request)
        }
    }
}

extension QueuedWrite: Encodable {
    /// The request as its JSON (what `--json` prints of a write kept for later).
    public func encode(to encoder: any Encoder) throws {
        try message.encode(to: encoder)
    }
}
