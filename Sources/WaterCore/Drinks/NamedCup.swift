/// One of a member's named cups: `log mug` logs its amount, of its drink.
public struct NamedCup: Hashable, Sendable {
    /// ``Drink/isValidName(_:)``'s form, and never one of the household's drinks when added.
    public var name: String
    /// 1 to 2000 ml.
    public var amountMillilitres: Int32
    /// One of the household's drinks; nil: the member's usual drink when logged.
    public var drink: String?

    public init(name: String, amountMillilitres: Int32, drink: String? = nil) {
        self.name = name
        self.amountMillilitres = amountMillilitres
        self.drink = drink
    }

    /// At most this many a member.
    public static let maximumCount = 32
}
