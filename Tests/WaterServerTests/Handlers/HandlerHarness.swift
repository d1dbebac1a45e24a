import Foundation
import Testing
import WaterCore
import WaterLog
import WaterProtocol
import WaterStore
import WaterSync
import WaterZoneInfo

@testable import WaterServer

/// The server's services on a real store in a temporary directory, called in process: typed
/// requests in, typed replies out, no socket and no frames.
final class HandlerHarness {
    /// 2026-11-30 12:00 UTC, a Monday.
    static let monday: Int64 = 1_796_040_000_000
    static let hour: Int64 = 3_600_000
    static let password = "correct horse battery"

    let directory: String
    let services: ServerServices
    let admin: Account

    /// - Parameter importQueue: where imports run (a test may hold it suspended).
    init(
        householdTimeZone: MemberTimeZone = .utc, concurrentHashes: Int = 2,
        importQueue: DispatchQueue = DispatchQueue(label: "test.import")
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("handlers-\(UUID())").path
        admin = try AdminCommands.initialize(
            dataDirectory: directory, admin: "ann", password: Self.password, timeZone: householdTimeZone,
            strength: .minimum, logger: .silent)
        var configuration = ServerConfiguration(dataDirectory: directory)
        configuration.passwordStrength = .minimum
        configuration.householdTimeZone = householdTimeZone
        configuration.concurrentPasswordHashes = concurrentHashes
        let store = try FileArchiveStore(
            path: directory, options: StoreOptions(timeZones: ZoneInfo.system), owner: "handler tests")
        services = ServerServices(
            store: store, configuration: configuration, logger: .silent, importQueue: importQueue)
    }

    deinit {
        services.store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var tracker: TrackerService { services.api.tracker }
    var drinks: DrinkService { services.api.drinks }
    var habits: HabitService { services.api.habits }
    var todo: TodoService { services.api.todo }
    var board: BoardService { services.api.board }
    var transfer: TransferService { services.api.transfer }
    var accounts: AccountService { services.api.accounts }

    /// A call's context, as the connection from `address` makes it.
    static func context(_ caller: Caller?, now: Int64, from address: String) -> CallContext {
        CallContext(caller: caller, now: now, peer: "\(address):50000", peerHost: address)
    }

    /// A call by `account` (nil: nobody logged in), as if its session had been checked.
    static func caller(_ account: Account?) -> Caller? {
        account.map { Caller(account: $0, digest: TokenDigest(bytes: [UInt8](repeating: 0, count: 32))!) }
    }

    /// Calls a unary handler and waits for its reply (it may come from the password pool).
    func call<Request, Response: Sendable>(
        _ handler: (Request, CallContext, @escaping Reply<Response>) throws(WaterError) -> Void,
        _ request: Request, as account: Account?, now: Int64 = monday, from address: String = "127.0.0.1"
    ) -> Result<Response, WaterError> {
        call(handler, request, by: Self.caller(account), now: now, from: address)
    }

    func call<Request, Response: Sendable>(
        _ handler: (Request, CallContext, @escaping Reply<Response>) throws(WaterError) -> Void,
        _ request: Request, by caller: Caller?, now: Int64 = monday, from address: String = "127.0.0.1"
    ) -> Result<Response, WaterError> {
        let reply = Locked<Result<Response, WaterError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        do throws(WaterError) {
            try handler(request, Self.context(caller, now: now, from: address)) { result in
                reply.withLock { $0 = result }
                done.signal()
            }
        } catch {
            return .failure(error)
        }
        done.wait()
        return reply.withLock { $0! }
    }

    /// Calls a handler that answers at once (a read).
    func call<Request, Response>(
        _ handler: (Request, CallContext) throws(WaterError) -> Response, _ request: Request, as account: Account?,
        now: Int64 = monday
    ) -> Result<Response, WaterError> {
        call(handler, request, by: Self.caller(account), now: now)
    }

    func call<Request, Response>(
        _ handler: (Request, CallContext) throws(WaterError) -> Response, _ request: Request, by caller: Caller?,
        now: Int64 = monday
    ) -> Result<Response, WaterError> {
        Result { () throws(WaterError) in
            try handler(request, Self.context(caller, now: now, from: "127.0.0.1"))
        }
    }

    /// Calls a handler that answers at once with a reply encoded beforehand, and decodes it.
    func call<Request, Response>(
        _ handler: (Request, CallContext) throws(WaterError) -> Encoded<Response>, _ request: Request,
        as account: Account?, now: Int64 = monday
    ) -> Result<Response, WaterError> {
        call(handler, request, by: Self.caller(account), now: now).flatMap { encoded in
            Result { () throws(WaterError) in try encoded.decoded() }
        }
    }

    /// Logs in as `username` and returns the session the token opens, as the server resolves it.
    func login(_ username: String, now: Int64 = monday) throws -> Caller {
        let response = try call(
            accounts.login, WaterV1.LoginRequest(username: username, password: Self.password), as: nil, now: now
        ).get()
        return try services.authenticate(response.authToken, now: now).get()
    }

    /// Adds a member through the admin's AddMember call.
    func addMember(_ username: String, timeZone: String = "") throws -> Account {
        _ = try call(
            accounts.addMember,
            WaterV1.AddMemberRequest(
                username: username, displayName: username.capitalized, password: Self.password, role: .member,
                timeZone: timeZone), as: admin
        ).get()
        return try #require(try services.store.accounts.read { $0.account(named: username) })
    }
}

extension Result where Failure == WaterError {
    /// The refusal, or nil when the call succeeded.
    var error: WaterError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Holds one of `hasher`'s runners with a job of its own until the semaphore returned is
/// signalled: with one runner, everything submitted meanwhile waits in the queue, in a known
/// state, when it is let go.
func holdHashing(_ hasher: PasswordHasher) throws -> DispatchSemaphore {
    let release = DispatchSemaphore(value: 0)
    let holding = DispatchSemaphore(value: 0)
    try hasher.submit(from: "a test") {
        holding.signal()
        release.wait()
    }
    holding.wait()
    return release
}

/// A fresh record id in the form the protocol carries.
func newID() -> String {
    UUID().uuidString.lowercased()
}
