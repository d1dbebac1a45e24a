import WaterCore

extension WaterError {
    /// A domain rule's refusal as every program says it: the server on the wire, the client
    /// checking a write it keeps for later, `water-server`'s admin commands. The one mapping
    /// from a ``DomainError/Kind`` to a status code, with the field it names.
    public init(_ error: DomainError) {
        let code: WaterV1.StatusCode =
            switch error.kind {
            case .invalid: .invalidArgument
            case .notFound: .notFound
            case .conflict: .alreadyExists
            case .full: .failedPrecondition
            }
        let violations = error.field.map { [WaterV1.FieldViolation(field: $0, description: error.message)] } ?? []
        self.init(code, error.message, violations: violations)
    }
}
