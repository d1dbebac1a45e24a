import Glibc
import WaterCore
import WaterStore
import WaterSystem
import WaterTestSupport
import WaterZoneInfo

/// 2026-11-30 08:00 UTC; each step of a workload happens a few minutes later.
let workloadStart: Int64 = 1_796_025_600_000

func id(_ n: Int) -> RecordID {
    RecordID.timeOrdered(unixMilliseconds: workloadStart + Int64(n), counter: 0, installation: 7)
}

/// One step of a scripted workload: a request of one member, or of the household's list.
enum Step: Hashable {
    case log(member: UInt64, n: Int, amount: Int32)
    case edit(member: UInt64, n: Int, amount: Int32)
    case delete(member: UInt64, n: Int)
    case goal(member: UInt64, Int32)
    case cup(member: UInt64, Int32)
    case habit(member: UInt64, n: Int)
    case check(member: UInt64, n: Int)
    case todo(n: Int)
    case toggle(n: Int)
    case move(n: Int, to: Int)

    /// A deterministic mix of every kind of write, over three members and the list.
    static func script(count: Int, seed: UInt64 = 42) -> [Step] {
        var random = SplitMix(seed: seed)
        return (0..<count).map { n in
            let member = UInt64(1 + random.next() % 3)
            let earlier = Int(random.next() % UInt64(max(n, 1)))
            switch random.next() % 20 {
            case 0: return .edit(member: member, n: earlier, amount: Int32(100 + random.next() % 400))
            case 1: return .delete(member: member, n: earlier)
            case 2: return .goal(member: member, Int32(1500 + 100 * (random.next() % 10)))
            case 3: return .cup(member: member, Int32(200 + 50 * (random.next() % 4)))
            case 4: return .habit(member: member, n: n)
            case 5: return .check(member: member, n: earlier)
            case 6: return .todo(n: n)
            case 7: return .toggle(n: earlier)
            case 8: return .move(n: earlier, to: Int(random.next() % 4))
            default: return .log(member: member, n: n, amount: [150, 250, 350, 500][Int(random.next() % 4)])
            }
        }
    }

    var now: Int64 { workloadStart + 3 * 60_000 * Int64(index) }

    private var index: Int {
        switch self {
        case .log(_, let n, _), .habit(_, let n), .todo(let n): n
        case .edit(_, let n, _), .delete(_, let n), .check(_, let n), .toggle(let n), .move(let n, _): n + 1
        case .goal, .cup: 0
        }
    }

    var member: UInt64? {
        switch self {
        case .log(let m, _, _), .edit(let m, _, _), .delete(let m, _), .goal(let m, _), .cup(let m, _),
            .habit(let m, _), .check(let m, _):
            m
        case .todo, .toggle, .move: nil
        }
    }

    /// What the domain makes of this step on `archive`; empty when it refuses (an id that does
    /// not exist for this member, say): such steps are part of the script too.
    func mutations(on archive: MemberArchive, at now: Int64) -> [MemberMutation] {
        do {
            switch self {
            case .log(_, let n, let amount):
                guard
                    case .log(let m) = try archive.water.validateLog(
                        id: id(n), amountMillilitres: amount, unixMilliseconds: now - 60_000, now: now)
                else { return [] }
                return [.water(m)]
            case .edit(_, let n, let amount):
                return [
                    .water(
                        try archive.water.validateEdit(
                            id: id(n), amountMillilitres: amount, unixMilliseconds: nil, now: now))
                ]
            case .delete(_, let n): return [.water(try archive.water.validateDelete(id: id(n)))]
            case .goal(_, let goal): return [.water(try archive.water.validateGoal(goal, now: now))]
            case .cup(_, let cup): return [.water(try archive.water.validateUsualCup(cup))]
            case .habit(_, let n):
                return try archive.habits.validateAdd(
                    id: id(n), name: "habit \(n)", icon: .book, color: .green, now: now
                )
                .map { [.habit($0)] } ?? []
            case .check(_, let n):
                let today = archive.water.today(atUnixMilliseconds: now)
                return [.habit(try archive.habits.validateCheck(id: id(n), date: today, checked: true, today: today))]
            default: return []
            }
        } catch {
            return []
        }
    }

    func mutations(on list: TodoList, at now: Int64) -> [TodoMutation] {
        do {
            switch self {
            case .todo(let n):
                return try list.validateAdd(id: id(n), text: "task number \(n)", by: 1, now: now).map { [$0] } ?? []
            case .toggle(let n): return [try list.validateToggle(id: id(n), by: 2, now: now)]
            case .move(let n, let to):
                return [try list.validateMove(id: id(n), to: min(to, max(list.items.count - 1, 0)))]
            default: return []
            }
        } catch {
            return []
        }
    }
}

/// What a store should hold: every acknowledged step applied to plain domain values.
struct Expected: Equatable {
    var members: [UInt64: MemberArchive] = [:]
    var household = TodoList()

    init() {}

    /// What `store` holds now.
    init(_ store: FileArchiveStore) throws {
        for member in store.memberIDs {
            members[member] = try store.member(member)!.read { $0 }
        }
        household = try store.household.read { $0 }
    }
}

/// Runs `step` against `store` and, when the store acknowledges it, against `expected`.
/// - Returns: whether the store acknowledged it (false: it reported a failure).
@discardableResult
func run(_ step: Step, on store: FileArchiveStore, expecting expected: inout Expected) -> Bool {
    let now = step.now
    do {
        if let member = step.member {
            let archive = try store.createMember(member)
            if expected.members[member] == nil { expected.members[member] = MemberArchive(timeZone: .utc) }
            var applied: [MemberMutation] = []
            try archive.commitAndWait { model in
                applied = step.mutations(on: model, at: now)
                return applied
            }
            for mutation in applied { expected.members[member]!.apply(mutation) }
        } else {
            var applied: [TodoMutation] = []
            try store.household.commitAndWait { model in
                applied = step.mutations(on: model, at: now)
                return applied
            }
            for mutation in applied { expected.household.apply(mutation) }
        }
        return true
    } catch {
        return false
    }
}

/// A fresh, empty directory under /tmp, removed by the caller with `removeTree`.
func temporaryDirectory() -> String {
    var template = Array("/tmp/water-test-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}

func removeTree(_ path: String) {
    _ = path.withCString { _ in system("rm -rf '\(path)'") }
}

/// A store over `fileSystem` at /data, with small log segments (so tests cross from one to the
/// next) unless told otherwise.
func openStore(_ fileSystem: any FileSystem, threshold: Int = 4096, segment: Int = 16 * 1024) throws
    -> FileArchiveStore
{
    var options = StoreOptions(timeZones: ZoneInfo.system)
    options.compactionThreshold = threshold
    options.logSegmentLength = segment
    return try FileArchiveStore(path: "/data", fileSystem: fileSystem, options: options, owner: "test")
}
