/// A daily goal for a child by age, from what children should drink.
///
/// EFSA Panel on Dietetic Products, Nutrition, and Allergies (NDA), "Scientific Opinion on
/// Dietary Reference Values for water", EFSA Journal 2010; 8(3):1459. Its adequate intakes of
/// total water are 1.3 l a day at 2-3 years, 1.6 l at 4-8 and 1.9 l (girls) to 2.1 l (boys) at
/// 9-13, of which food brings about 20 to 30 %: the rest, about 1.0 l, 1.2 l and 1.5-1.6 l, is
/// what drinks bring, and what `water-client` counts. At 9-13 the girls' figure is taken (the
/// lower, as a first goal; an admin or a guardian raises it with `goal`). Below 2 years the
/// opinion's figures are mostly milk, and from 14 the adults' apply: no suggestion there.
public enum ChildGoal {
    /// The ages a goal is suggested for.
    public static let ages: ClosedRange<Int> = 2...13

    /// The daily goal in millilitres for a child of `years`, or nil outside ``ages``.
    public static func millilitres(forAge years: Int) -> Int32? {
        switch years {
        case 2...3: 1000
        case 4...8: 1200
        case 9...13: 1500
        default: nil
        }
    }

    /// "EFSA's adequate intake of water from drinks at 4-8 years", for the age group of `years`.
    public static func source(forAge years: Int) -> String {
        let group =
            switch years {
            case 2...3: "2-3"
            case 4...8: "4-8"
            default: "9-13"
            }
        return "EFSA's adequate intake of water from drinks at \(group) years (EFSA 2010)"
    }
}
