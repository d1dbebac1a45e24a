import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// The water diary's commands: `log`, `undo`, `edit`, `rm`, `today`, `week`, `history`, `goal` and
/// `zone`, each a type of its own in the `WaterCommands+...` files, and what they share.
enum WaterCommands {
    /// An amount as typed, at every command that takes one (``TypedAmount``).
    static func amountMl(_ text: String) throws(UsageError) -> Int32 {
        guard let value = TypedAmount.millilitres(text) else {
            throw UsageError(TypedAmount.refusal(text) ?? "an amount is \(TypedAmount.forms)")
        }
        return value
    }

    /// A drink's amount as typed: 1 to 2000 ml. (0 means "the usual cup" on the wire, so `log 0`
    /// must be refused here rather than sent.)
    static func drinkMl(_ text: String) throws -> Int32 {
        let value = try amountMl(text)
        guard WaterLimits.amountMillilitres.contains(value) else {
            throw WaterError(
                .invalidArgument,
                "a drink must be between 1 and 2000 ml, got \(value)"
                    + (value > 2000 ? " (log it as two drinks if it really was)" : ""))
        }
        return value
    }
}
