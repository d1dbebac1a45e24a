import WaterCore
import WaterProtocol

/// The client library: a connection, the caller's token, and ids for new records.
///
///     let client = try WaterClient(configuration: configuration, token: session.token)
///     let reply = try client.call(WaterV1.LogWaterRequest(entryID: client.newID().description, amountMl: 250))
public final class WaterClient {
    public let connection: WaterConnection
    public var token: [UInt8]
    private let installation: UInt64
    private var lastMillisecond: Int64 = 0
    private var counter: UInt16 = 0

    public init(
        configuration: ClientConfiguration, token: [UInt8] = [], installation: UInt64 = .random(in: 0...(1 << 62))
    ) throws(WaterError) {
        self.connection = try WaterConnection(configuration: configuration)
        self.token = token
        self.installation = installation
    }

    /// Calls a unary method with the client's token.
    public func call<Request: UnaryRPCRequest>(_ request: Request) throws(WaterError) -> Request.Response {
        try connection.call(request, token: token)
    }

    /// Calls a streaming method; `onMessage` returns whether to go on.
    public func stream<Request: ServerStreamingRPCRequest>(_ request: Request, onMessage: (Request.Response) -> Bool)
        throws(WaterError)
    {
        try connection.stream(request, token: token, onMessage: onMessage)
    }

    /// Logs in and keeps the token for later calls.
    @discardableResult
    public func login(username: String, password: String) throws(WaterError) -> WaterV1.LoginResponse {
        let response = try call(WaterV1.LoginRequest(username: username, password: password))
        token = response.authToken
        return response
    }

    /// A new time-ordered id (UUID version 8) for an entry, item or habit made now: it carries
    /// this moment and this installation, which the server stores in a byte or two.
    public func newID(at unixMilliseconds: Int64 = UnixTime.nowMilliseconds()) -> RecordID {
        if unixMilliseconds == lastMillisecond {
            counter &+= 1
        } else {
            lastMillisecond = unixMilliseconds
            counter = 0
        }
        return .timeOrdered(unixMilliseconds: unixMilliseconds, counter: counter, installation: installation)
    }
}
