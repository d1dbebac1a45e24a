import WaterCodec
import WaterProtocol

/// Several methods of one kind and access at once, so that a service's `register(in:)` reads as
/// who may call what: each handler is added as the one-method form of its kind adds it.
extension Router {
    /// Unary methods answered on the loop (``onLoop(_:_:)``).
    mutating func onLoop<each Request: UnaryRPCRequest & WireMessage>(
        _ access: Access,
        _ handle: repeat @escaping @Sendable (each Request, CallContext) throws(WaterError) -> (each Request).Response
    ) where repeat (each Request).Response: WireMessage {
        repeat onLoop(access, each handle)
    }

    /// Unary methods whose handlers answer later, run on the loop (``later(_:on:_:)``).
    mutating func later<each Request: UnaryRPCRequest>(
        _ access: Access,
        _ handle: repeat
            @escaping @Sendable (each Request, CallContext, @escaping Reply<(each Request).Response>)
            throws(WaterError) -> Void
    ) {
        repeat later(access, on: nil, each handle)
    }

    /// Unary reads answered off the loop, in `pool` (``offLoop(_:pool:_:)``).
    mutating func offLoop<each Request: UnaryRPCRequest>(
        _ access: Access, pool: ReadPool,
        _ handle: repeat @escaping @Sendable (each Request, CallContext) throws(WaterError) -> (each Request).Response
    ) where repeat (each Request).Response: WireMessage {
        repeat offLoop(access, pool: pool, each handle)
    }
}
