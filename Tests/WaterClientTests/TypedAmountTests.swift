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

    @Test("anything else is not an amount: fractions of a millilitre, signs, two separators, no digits")
    func refused() {
        for text in [
            "0.3333l", "-5", "+5", "2,5,0l", "1.2.3", "l", "ml", ".", "5.", "250  ml", "1234567", "5kg", "٣٠٠", "",
        ] {
            #expect(TypedAmount.millilitres(text) == nil, "\(text)")
        }
    }
}

/// Issue 32, item 19: amounts as German-speaking bottles print them.
@Suite("An amount as a German-speaking bottle prints it")
struct TypedAmountBottleTests {
    @Test("a decimal comma, a space before the unit, units in any case, decilitres")
    func bottles() {
        let read: [(String, Int32)] = [
            ("0,33l", 330), ("1,5 l", 1500), ("330ML", 330), ("33 cl", 330), ("0,5 L", 500), ("1,5L", 1500),
            ("33CL", 330), ("3 dl", 300), ("2,5dl", 250), ("250 ml", 250), ("0,75\u{A0}l", 750),
            ("0,2\u{202F}l", 200), (",5l", 500), ("33,5 cl", 335), ("250Ml", 250),
        ]
        for (text, millilitres) in read {
            #expect(TypedAmount.millilitres(text) == millilitres, "\(text)")
        }
    }

    @Test("ambiguous or malformed forms are refused: a separator in millilitres, two spaces, two separators")
    func refused() {
        for text in [
            "1.000", "1,000", "1.000ml", "1,5", "250,0", "1.5ml", "1,5  l", " 1,5l", "1,5l ", "1.000,5l", "1,000.5l",
            "1,,5l", "1,5 ", "1 ,5l", "1,5 m", "5 kl", "0,3333l", "1,5\tl", "1,5\nl",
        ] {
            #expect(TypedAmount.millilitres(text) == nil, "\(text)")
        }
    }

    @Test("byte by byte: every printable ASCII character in each place of \"1?5l\" and \"1,5?l\" is read or refused")
    func everyByte() {
        for byte in UInt8(0x20)...UInt8(0x7E) {
            let character = Character(Unicode.Scalar(byte))
            let middle = TypedAmount.millilitres("1\(character)5l")
            switch character {
            case ".", ",": #expect(middle == 1500, "\(character)")
            case "0"..."9": #expect(middle == Int32("1\(character)5")! * 1000, "\(character)")
            default: #expect(middle == nil, "\(character)")
            }
            let beforeUnit = TypedAmount.millilitres("1,5\(character)l")
            switch character {
            case " ": #expect(beforeUnit == 1500)
            case "0"..."9": #expect(beforeUnit == 1500 + Int32(byte - 0x30) * 10, "\(character)")
            case "c", "C": #expect(beforeUnit == 15, "\(character)")
            case "d", "D": #expect(beforeUnit == 150, "\(character)")
            case "m", "M": #expect(beforeUnit == nil, "1,5 ml is not whole")
            default: #expect(beforeUnit == nil, "\(character)")
            }
        }
    }

    @Test("a refusal says why: an ambiguous separator names both readings")
    func reasons() {
        #expect(TypedAmount.refusal("1.000")?.contains("1 ml or 1000 ml") == true)
        #expect(TypedAmount.refusal("1,000")?.contains("1 ml or 1000 ml") == true)
        #expect(TypedAmount.refusal("1,5")?.contains("litres (1,5l)") == true)
        #expect(TypedAmount.refusal("0,3333l")?.contains("whole number of millilitres") == true)
        #expect(TypedAmount.refusal("1,5 l") == nil)
    }
}
