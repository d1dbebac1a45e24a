import CProtobufC
import CWaterProto

/// One method of the API, as `proto/` defines it.
public struct MethodDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The service's full name, e.g. `"water.v1.Tracker"`.
    public let service: String
    /// The method's name within its service, e.g. `"LogWater"`.
    public let name: String
    /// The request message's full proto name.
    public let requestType: String
    /// The response message's full proto name.
    public let responseType: String
    /// Whether the method answers with a stream of responses rather than exactly one.
    public let isServerStreaming: Bool

    /// The name that travels in `RequestEnvelope.method`: `"water.v1.Tracker/LogWater"`.
    public var fullName: String { "\(service)/\(name)" }

    public var description: String { fullName }
}

/// Every method of the API, derived at start-up from protoc-c's service descriptors and the
/// generated list of streaming methods, so that no method name is typed twice.
public struct MethodTable: Sendable {
    /// The table of `proto/` as compiled into this binary.
    public static let shared = MethodTable()

    /// Every method, in service and then proto order.
    public let methods: [MethodDescriptor]
    private let byFullName: [String: MethodDescriptor]
    private let byRequestType: [String: MethodDescriptor]

    private init() {
        var streaming: Set<String> = []
        for index in 0..<water_registry_streaming_method_count() {
            streaming.insert(String(cString: water_registry_streaming_method(index)))
        }
        var methods: [MethodDescriptor] = []
        for serviceIndex in 0..<water_registry_service_count() {
            let service = water_registry_service(serviceIndex)!.pointee
            let serviceName = String(cString: service.name)
            for methodIndex in 0..<Int(service.n_methods) {
                let method = service.methods[methodIndex]
                let name = String(cString: method.name)
                methods.append(
                    MethodDescriptor(
                        service: serviceName,
                        name: name,
                        requestType: String(cString: method.input.pointee.name),
                        responseType: String(cString: method.output.pointee.name),
                        isServerStreaming: streaming.contains("\(serviceName)/\(name)")))
            }
        }
        self.methods = methods
        self.byFullName = Dictionary(uniqueKeysWithValues: methods.map { ($0.fullName, $0) })
        self.byRequestType = Dictionary(uniqueKeysWithValues: methods.map { ($0.requestType, $0) })
    }

    /// The method named `fullName` (`"water.v1.Tracker/LogWater"`), or nil when there is none.
    public func method(named fullName: String) -> MethodDescriptor? {
        byFullName[fullName]
    }

    /// The method whose request message is `requestType` (a full proto name).
    public func method(forRequest requestType: String) -> MethodDescriptor? {
        byRequestType[requestType]
    }
}
