import CProtobufC
import CWaterProto

/// Every method of the API, derived at start-up from protoc-c's service descriptors and the
/// generated list of streaming methods, so that no method name is typed twice.
public struct MethodTable: Sendable {
    /// The table of `proto/` as compiled into this binary.
    public static let shared = MethodTable()

    /// Every method, in service and then proto order.
    public let methods: [MethodDescriptor]
    /// What each method's descriptor reads, by index.
    let names: [Names]
    private let byFullName: MethodNameIndex
    private let byRequestType: [String: Int]

    /// The names of one method, made once.
    struct Names: Sendable {
        let service, name, requestType, responseType, fullName: String
        let isServerStreaming: Bool
    }

    private init() {
        var streaming: Set<String> = []
        for index in 0..<water_registry_streaming_method_count() {
            streaming.insert(String(cString: water_registry_streaming_method(index)))
        }
        var names: [Names] = []
        for serviceIndex in 0..<water_registry_service_count() {
            let service = water_registry_service(serviceIndex)!.pointee
            let serviceName = String(cString: service.name)
            for methodIndex in 0..<Int(service.n_methods) {
                let method = service.methods[methodIndex]
                let fullName = "\(serviceName)/\(String(cString: method.name))"
                names.append(
                    Names(
                        service: serviceName, name: String(cString: method.name),
                        requestType: String(cString: method.input.pointee.name),
                        responseType: String(cString: method.output.pointee.name), fullName: fullName,
                        isServerStreaming: streaming.contains(fullName)))
            }
        }
        self.names = names
        self.methods = names.indices.map(MethodDescriptor.init(index:))
        self.byFullName = MethodNameIndex(names: names.map(\.fullName))
        self.byRequestType = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1.requestType, $0) })
    }

    /// The method named `fullName` (`"water.v1.Tracker/LogWater"`), or nil when there is none.
    public func method(named fullName: String) -> MethodDescriptor? {
        var fullName = fullName
        return fullName.withUTF8 { method(named: UnsafeRawBufferPointer($0)) }
    }

    /// The method whose full name is these UTF-8 bytes (an envelope's `method`, as it came off
    /// the wire), found without making a String.
    public func method(named utf8: UnsafeRawBufferPointer) -> MethodDescriptor? {
        byFullName.index(of: utf8).map { methods[$0] }
    }

    /// The method whose request message is `requestType` (a full proto name).
    public func method(forRequest requestType: String) -> MethodDescriptor? {
        byRequestType[requestType].map { methods[$0] }
    }

    /// The method of a generated request type (its ``RPCRequest/method``). Traps when there is
    /// none, which only a hand-written conformance could cause.
    public func method(calledBy requestType: String) -> MethodDescriptor {
        guard let method = method(forRequest: requestType) else {
            preconditionFailure("\(requestType) is the request of no method in proto/")
        }
        return method
    }
}
