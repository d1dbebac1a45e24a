import WaterCLI
import WaterCore
import WaterServer
import WaterZoneInfo

// What several of the administrator's commands read from their command line, and how they answer.

/// The household's zone: the option, else this machine's.
func householdTimeZone(_ option: String?) throws(UsageError) -> MemberTimeZone {
    guard let option else { return ZoneInfo.system.local() }
    guard let zone = ZoneInfo.system.zone(named: option) else {
        let near = Suggestion.closestZone(to: option, among: ZoneInfo.system.names()) ?? "Europe/Berlin"
        throw UsageError("--time-zone \(option) is not a time zone this system knows (did you mean \(near)?)")
    }
    return zone
}

/// `--password-strength`: how costly a new password's hash is.
func strength(_ option: String?) throws(UsageError) -> PasswordHasher.Strength {
    switch option {
    case nil, "interactive": return .interactive
    case "minimum": return .minimum
    case let other?: throw UsageError("--password-strength must be interactive or minimum, got \(other)")
    }
}

/// `--data DIR`, which every command but help, completion and manpage needs.
func requireData(_ arguments: inout Arguments) throws(UsageError) -> String {
    guard let data = try arguments.option("data") else { throw UsageError("--data DIR is required") }
    return data
}

/// Prints `object` as one JSON object with --json, else the text for people.
func report(json: Bool, _ object: some Encodable, _ text: () -> String) {
    Terminal.print(json ? JSONOutput.encode(object) : text())
}

/// A new password as ``newPasswordOptions`` say to take it: from standard input
/// (`--password-stdin`) or typed twice at the terminal, hashed at `--password-strength`.
struct NewPassword {
    let fromStandardInput: Bool
    let hashing: PasswordHasher.Strength

    init(_ arguments: inout Arguments) throws {
        fromStandardInput = arguments.flag("password-stdin")
        hashing = try strength(try arguments.option("password-strength"))
    }

    /// Reads the password; asks with `prompt` at a terminal.
    func read(prompt: String) throws -> String {
        guard
            let password = try Terminal.password(
                fromStandardInput: fromStandardInput, prompt: prompt, confirm: !fromStandardInput)
        else { throw AdminCommands.Failure(description: "no password given") }
        return password
    }
}
