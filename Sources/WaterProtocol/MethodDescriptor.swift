/// One method of the API, as `proto/` defines it: its place in ``MethodTable/shared``, whose
/// names it reads (each made once, when the table is). Copying or comparing one is copying or
/// comparing an integer.
public struct MethodDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The method's place in ``MethodTable/methods``, for tables indexed by method (a handler
    /// per method in an array rather than a dictionary keyed by name).
    public let index: Int

    private var names: MethodTable.Names { MethodTable.shared.names[index] }

    /// The service's full name, e.g. `"water.v1.Tracker"`.
    public var service: String { names.service }
    /// The method's name within its service, e.g. `"LogWater"`.
    public var name: String { names.name }
    /// The request message's full proto name.
    public var requestType: String { names.requestType }
    /// The response message's full proto name.
    public var responseType: String { names.responseType }
    /// Whether the method answers with a stream of responses rather than exactly one.
    public var isServerStreaming: Bool { names.isServerStreaming }
    /// The name that travels in `RequestEnvelope.method`: `"water.v1.Tracker/LogWater"`.
    public var fullName: String { names.fullName }

    public var description: String { fullName }
}
