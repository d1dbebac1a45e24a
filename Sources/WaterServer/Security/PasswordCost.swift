import CSodium

/// How much work one argon2id hash is: its passes over memory and the memory it fills. Every
/// hash carries its own in its encoded form (`$argon2id$v=19$m=65536,t=2,p=1$...`), so a
/// hash made at another `--password-strength` costs what it was made with, not what the
/// server runs at.
public struct PasswordCost: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// argon2id's `t`, libsodium's `opslimit`.
    public var iterations: UInt64
    /// argon2id's `m`; libsodium's `memlimit` is this times 1024.
    public var memoryKiB: UInt64

    /// argon2id's time grows with passes times memory; memory breaks a tie.
    public static func < (left: PasswordCost, right: PasswordCost) -> Bool {
        (left.work, left.memoryKiB) < (right.work, right.memoryKiB)
    }

    private var work: UInt64 {
        let (product, overflow) = iterations.multipliedReportingOverflow(by: memoryKiB)
        return overflow ? .max : product
    }

    public var description: String { "t=\(iterations) m=\(memoryKiB) KiB" }
}

/// The two ways a cost is known: the strength this server hashes at, or a stored hash's own.
/// Kept out of the struct's body so that the memberwise init (used only here) stays implicit.
extension PasswordCost {
    public init(_ strength: PasswordHasher.Strength) {
        switch strength {
        case .interactive:
            self.init(
                iterations: UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
                memoryKiB: UInt64(crypto_pwhash_MEMLIMIT_INTERACTIVE) / 1024)
        case .minimum:
            self.init(
                iterations: UInt64(crypto_pwhash_OPSLIMIT_MIN), memoryKiB: UInt64(crypto_pwhash_MEMLIMIT_MIN) / 1024)
        }
    }

    /// The cost written in an encoded argon2id hash; nil for anything else.
    public init?(encodedHash: String) {
        let fields = encodedHash.split(separator: "$")
        guard fields.count >= 4, fields[0] == "argon2id" else { return nil }
        var values: [Substring: UInt64] = [:]
        for pair in fields[2].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = UInt64(parts[1]) else { return nil }
            values[parts[0]] = value
        }
        guard let memory = values["m"], let iterations = values["t"], memory > 0, iterations > 0 else { return nil }
        self.init(iterations: iterations, memoryKiB: memory)
    }
}
