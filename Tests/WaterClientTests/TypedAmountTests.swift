import Testing
import WaterClient

@Suite("An amount as typed")
struct TypedAmountTests {
    @Test("millilitres, litres and centilitres, as a bottle prints them")
    func forms() {
        let read: [(String, Int32)] = [
            ("250", 250), ("250ml", 250), ("250mL", 250), ("0.5l", 500), ("1.5L", 1500), (".5l", 500),
            ("33cl", 330), ("33.5cl", 335), ("2l", 2000), ("0", 0), ("0.330l", 330), ("1.500L", 1500),
        ]
        for (text, millilitres) in read {
            #expect(TypedAmount.millilitres(text) == millilitres, "\(text)")
        }
    }

    @Test("anything else is not an amount: fractions of a millilitre, signs, commas, two points, no digits")
    func refused() {
        for text in [
            "0.3333l", "-5", "+5", "2,5l", "1.2.3", "l", "ml", ".", "5.", "250 ml", "1234567", "5kg", "٣٠٠", "",
        ] {
            #expect(TypedAmount.millilitres(text) == nil, "\(text)")
        }
    }
}
