import Testing
import WaterCore
import WaterProtocol

/// The one mapping from a domain rule's refusal to a status code, which the server, the
/// client's outbox checks and `water-server`'s admin commands all use.
@Suite("Domain refusals as status codes")
struct DomainRefusalTests {
    @Test(arguments: [
        (DomainError.Kind.invalid, WaterV1.StatusCode.invalidArgument),
        (.notFound, .notFound),
        (.conflict, .alreadyExists),
        (.full, .failedPrecondition),
    ])
    func eachKindHasItsCodeAndKeepsItsField(_ kind: DomainError.Kind, _ code: WaterV1.StatusCode) {
        let error = WaterError(DomainError(kind, field: "amount_ml", "no"))
        #expect(error.code == code)
        #expect(error.message == "no")
        #expect(error.violations == [WaterV1.FieldViolation(field: "amount_ml", description: "no")])
    }

    @Test func aRefusalWithoutAFieldHasNoViolation() {
        #expect(WaterError(DomainError(.full, "the list is full")).violations.isEmpty)
    }
}
