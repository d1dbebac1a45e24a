import WaterCodec

/// The request message of a method; every method has a request type of its own.
public protocol RPCRequest: ProtoMessage {
    associatedtype Response: ProtoMessage
    /// The method this request calls, looked up in ``MethodTable`` once (generated).
    static var method: MethodDescriptor { get }
}

/// The request of a method that answers with exactly one response.
public protocol UnaryRPCRequest: RPCRequest {}

/// The request of a method that answers with a stream of responses (`returns (stream ...)`).
public protocol ServerStreamingRPCRequest: RPCRequest {}
