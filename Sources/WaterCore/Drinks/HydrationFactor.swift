/// How much of a drink counts toward the goal, kept exactly as whole hundredths (139 is 1.39):
/// a factor typed as "1.39" is stored, shown and exported as exactly that, and no Double ever
/// decides a day's amount.
public enum HydrationFactor {
    /// 0.10 to 2.00.
    public static let allowedHundredths: ClosedRange<Int32> = 10...200
    /// Still water, and every entry from before drinks existed.
    public static let water: Int32 = 100

    /// What `millilitres` of a drink with `hundredths` counts toward the goal:
    /// round(ml x factor), halves away from zero (200 ml at 1.39 is 278, 50 ml at 0.91 is 45.5,
    /// so 46). The one place a day's amount is computed from: today, the week, history, the
    /// board and exports all add these.
    public static func counted(millilitres: Int32, hundredths: Int32) -> Int32 {
        let product = Int64(millilitres) * Int64(hundredths)
        let half: Int64 = product < 0 ? -50 : 50
        return Int32((product + half) / 100)
    }

    /// "1.39" for 139: always two decimals, as the factor is kept.
    public static func text(_ hundredths: Int32) -> String {
        let whole = hundredths / 100
        let fraction = hundredths % 100
        return "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// The hundredths of a factor as typed: "1.39", "1.5", "1" or ".91"; nil for anything else
    /// (a third decimal, a sign, an exponent): a factor is never rounded on the way in.
    public static func hundredths(_ text: String) -> Int32? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.count <= 2, fraction.count <= 2,
            (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber }), parts.count == 1 || !fraction.isEmpty
        else { return nil }
        let wholeValue = Int32(whole) ?? 0
        let fractionValue = (Int32(fraction) ?? 0) * (fraction.count == 1 ? 10 : 1)
        return wholeValue * 100 + fractionValue
    }
}
