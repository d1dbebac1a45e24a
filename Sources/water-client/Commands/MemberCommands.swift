import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `member add|rename|reset|rm|restore|guardian|admin|ls` (admins, except ls).
enum MemberCommands {
    /// `member add NAME [--display-name TEXT] [--admin] [--time-zone ZONE] [--password-stdin] [--child]`.
    enum Add: ClientCommand {
        static let spec = CommandSpec(
            "member add", "NAME", summary: "add a member (admins)",
            details: """
                Adds a member; their password is asked for twice, or read from standard input. A child
                (--child) has no password and cannot log in until an admin gives one (member reset);
                admins and the child's guardians (member guardian) act for them with --for. With --age
                (2 to 13) a child's daily goal is set to what EFSA (2010) found children of that age need
                from drinks: 1000 ml at 2-3 years, 1200 ml at 4-8, 1500 ml at 9-13.
                """,
            options: [
                OptionSpec("display-name", "TEXT", "the name the board shows"),
                OptionSpec("admin", nil, "make them an admin"),
                OptionSpec("time-zone", "ZONE", "the zone their days follow (default: the household's)"),
                OptionSpec("password-stdin", nil, "read their password from standard input"),
                OptionSpec("child", nil, "a child: no password and no login; admins and guardians log for them"),
                OptionSpec("age", "YEARS", "a child's age (2-13): sets their goal from EFSA's figures for children"),
            ],
            examples: [
                "member add ben --display-name Ben --time-zone Europe/Berlin", "member add kim --child --age 6",
            ])

        static func run(_ invocation: inout Invocation) throws {
            let displayName = try invocation.arguments.option("display-name") ?? ""
            let admin = invocation.arguments.flag("admin")
            let zone = try invocation.arguments.option("time-zone") ?? ""
            let fromStandardInput = invocation.arguments.flag("password-stdin")
            let child = invocation.arguments.flag("child")
            let age = try invocation.arguments.option("age")
            let name = try invocation.arguments.onlyPositional(missing: "member add needs a username")
            if child && (admin || fromStandardInput) {
                throw UsageError(
                    "a child is added without a password and not as an admin: leave out --admin and --password-stdin")
            }
            let goal = try age.map { (text) throws(UsageError) in try childGoal(age: text, child: child, name) }
            let password = child ? "" : try newPassword(for: name, fromStandardInput)
            let response = try invocation.client().call(
                WaterV1.AddMemberRequest(
                    username: name, displayName: displayName, password: password, role: admin ? .admin : .member,
                    timeZone: zone, child: child))
            // The goal is the child's first setting, set as an admin sets anyone's (--for).
            let goalSet = try goal.map { goal in
                try invocation.client().call(WaterV1.SetGoalRequest(dailyGoalMl: goal.millilitres, forMember: name))
            }
            invocation.output(response) {
                (child
                    ? "added \(name), a child with no password: log for them with --for \(name) "
                        + "(admins can; make a guardian with: water-client member guardian \(name) add NAME)"
                    : "added \(name); they can log in with: water-client login \(name)")
                    + (goal.map { goal in
                        "\n\(name)'s daily goal: \(goalSet?.settings?.dailyGoalMl ?? goal.millilitres) ml, \(goal.source); "
                            + "change it with: water-client goal ML --for \(name)"
                    } ?? "")
            }
        }

        /// The goal `--age` sets for a child: EFSA's figure for drinks at that age (``ChildGoal``).
        private static func childGoal(age text: String, child: Bool, _ name: String) throws(UsageError)
            -> (millilitres: Int32, source: String)
        {
            guard child else { throw UsageError("--age is for a child: member add \(name) --child --age YEARS") }
            guard let years = Int(text), let millilitres = ChildGoal.millilitres(forAge: years) else {
                throw UsageError(
                    "--age takes \(ChildGoal.ages.lowerBound) to \(ChildGoal.ages.upperBound) (EFSA's figures for "
                        + "children's drinks), got \"\(text.terminalSafe)\"; older children keep the adults' goal")
            }
            return (millilitres, ChildGoal.source(forAge: years))
        }
    }

    /// `member guardian CHILD add|rm MEMBER`.
    enum Guardian: ClientCommand {
        static let spec = CommandSpec(
            "member guardian", "CHILD add|rm MEMBER", summary: "let a member act for a child, or stop (admins)",
            details: """
                Makes MEMBER a guardian of CHILD (a member added with --child), or no longer one: a
                guardian acts for the child with --for CHILD on log, undo, edit, rm, today, week,
                history, goal, cup and habit. Admins act for anyone. Repeating it changes nothing.
                """,
            examples: ["member guardian kim add ann", "member guardian kim rm ann"])

        static func run(_ invocation: inout Invocation) throws {
            guard let child = invocation.arguments.positional(), let verb = invocation.arguments.positional(),
                let guardian = invocation.arguments.positional()
            else {
                throw UsageError("member guardian needs a child, add or rm, and a member: member guardian kim add ann")
            }
            try invocation.arguments.finish()
            guard verb == "add" || verb == "rm" else {
                throw UsageError("member guardian takes add or rm, got \"\(verb.terminalSafe)\"")
            }
            let response = try invocation.client().call(
                WaterV1.SetGuardianRequest(username: child, guardian: guardian, remove: verb == "rm"))
            invocation.output(response) {
                let guardians = response.member?.guardians.map(\.terminalSafe) ?? []
                return "guardians of \(child): "
                    + (guardians.isEmpty ? "none (admins still act for them)" : guardians.joined(separator: ", "))
            }
        }
    }

    /// `member admin NAME on|off`.
    enum Admin: ClientCommand {
        static let spec = CommandSpec(
            "member admin", "NAME on|off", summary: "make a member an admin, or an admin a member (admins)",
            details: "Never the household's last admin: make another admin first.",
            examples: ["member admin ben on", "member admin ben off"])

        static func run(_ invocation: inout Invocation) throws {
            guard let name = invocation.arguments.positional(), let state = invocation.arguments.positional() else {
                throw UsageError("member admin needs a username and on or off: member admin ben on")
            }
            try invocation.arguments.finish()
            guard state == "on" || state == "off" else {
                throw UsageError("member admin takes on or off, got \"\(state.terminalSafe)\"")
            }
            let response = try invocation.client().call(
                WaterV1.SetRoleRequest(username: name, role: state == "on" ? .admin : .member))
            invocation.output(response) { state == "on" ? "\(name) is an admin" : "\(name) is a member, not an admin" }
        }
    }

    /// `member rename NAME [--to NEW_NAME] [--display-name TEXT]`.
    enum Rename: ClientCommand {
        static let spec = CommandSpec(
            "member rename", "NAME", summary: "change a member's username or display name (admins)",
            options: [
                OptionSpec("to", "NEW", "the new username"),
                OptionSpec("display-name", "TEXT", "the new display name"),
            ],
            examples: ["member rename ben --to benjamin", "member rename ben --display-name \"Ben B.\""])

        static func run(_ invocation: inout Invocation) throws {
            let to = try invocation.arguments.option("to") ?? ""
            let displayName = try invocation.arguments.option("display-name") ?? ""
            let name = try invocation.arguments.onlyPositional(missing: "member rename needs a username")
            guard !to.isEmpty || !displayName.isEmpty else {
                throw UsageError("member rename needs --to NEW_NAME, --display-name TEXT or both")
            }
            let response = try invocation.client().call(
                WaterV1.RenameMemberRequest(username: name, newUsername: to, newDisplayName: displayName))
            invocation.output(response) {
                "renamed: \((response.member?.username ?? to).terminalSafe) "
                    + "(\((response.member?.displayName ?? displayName).terminalSafe))"
            }
        }
    }

    /// `member reset NAME [--password-stdin]`: a new password, which ends their sessions.
    enum Reset: ClientCommand {
        static let spec = CommandSpec(
            "member reset", "NAME", summary: "set a member's password (admins)",
            options: [passwordFromStandardInput],
            examples: ["member reset ben"])

        static func run(_ invocation: inout Invocation) throws {
            let fromStandardInput = invocation.arguments.flag("password-stdin")
            let name = try invocation.arguments.onlyPositional(missing: "member reset needs a username")
            let password = try newPassword(for: name, fromStandardInput)
            let response = try invocation.client().call(
                WaterV1.ResetPasswordRequest(username: name, newPassword: password))
            invocation.output(response) { "password of \(name) reset; their sessions have ended" }
        }
    }

    /// `member restore NAME`: a removed member back, with their archive.
    enum Restore: ClientCommand {
        static let spec = CommandSpec(
            "member restore", "NAME", summary: "bring a removed member back, with their data (admins)",
            details: """
                Brings back a member that member rm removed: the same account and password (they log
                in again) and every drink and habit they had, which the server kept.
                """,
            examples: ["member restore ben"])

        static func run(_ invocation: inout Invocation) throws {
            let name = try invocation.arguments.onlyPositional(
                missing: "member restore needs the removed member's username")
            let response = try invocation.client().call(WaterV1.RestoreMemberRequest(username: name))
            invocation.output(response) {
                "restored \(name), with their drinks and habits; they log in again with: water-client login \(name)"
            }
        }
    }

    /// `member ls [--removed]`.
    enum List: ClientCommand {
        static let spec = CommandSpec(
            "member ls", summary: "the household's members",
            details: """
                Lists the household's members. With --removed (admins): the members member rm removed,
                whose data the server keeps; member restore NAME brings one back.
                """,
            options: [OptionSpec("removed", nil, "list the removed members instead (admins)")],
            examples: ["member ls", "member ls --removed"])

        static func run(_ invocation: inout Invocation) throws {
            let removed = invocation.arguments.flag("removed")
            try invocation.arguments.finish()
            let response = try invocation.client().call(WaterV1.ListMembersRequest(removed: removed))
            invocation.output(response) {
                if removed {
                    guard !response.members.isEmpty else { return "no removed members" }
                    return response.members.map {
                        let name = $0.username.terminalSafe
                        return
                            "\(name) (\($0.displayName.terminalSafe)), removed: member restore \(name) brings them back"
                    }.joined(separator: "\n")
                }
                // Usernames are what members copy into other commands: the column fits the
                // longest one, never cuts it.
                let width = response.members.map { $0.username.terminalSafe.count }.max() ?? 0
                return response.members.map {
                    "\(Format.column($0.username.terminalSafe, max(width, 8))) \($0.displayName.terminalSafe)"
                        + memberNotes($0)
                }.joined(separator: "\n")
            }
        }
    }

    /// `member rm NAME`: asks first on a terminal, and says so when the admin removes themselves.
    enum Remove: ClientCommand {
        static let spec = CommandSpec(
            "member rm", "NAME", summary: "remove a member (admins); their data stays on the server",
            details: """
                Removes a member: they can no longer log in and leave the board. Their data stays on
                the server, and member restore NAME brings them back. Asks on a terminal; --yes for
                scripts. Removing yourself ends your own session: it says so first.
                """,
            options: [OptionSpec("yes", nil, "do not ask")],
            examples: ["member rm ben --yes"])

        static func run(_ invocation: inout Invocation) throws {
            guard let name = invocation.arguments.positional() else { throw UsageError("member rm needs a username") }
            let confirmed = invocation.arguments.flag("yes")
            try invocation.arguments.finish()
            let yourself = invocation.session()?.username == name
            let consequence =
                (yourself
                    ? "you are removing yourself: this ends your session here and you can no longer log in; "
                        + "another admin can bring you back with member restore \(name). "
                    : "")
                + "\(name) can no longer log in and leaves the board; their drinks and habits stay on the server's "
                + "disk (nothing is deleted; member restore \(name) brings them back)"
            // Said even with --yes: a script that removes its own admin should leave a trace.
            if yourself && confirmed { Terminal.error("water-client: warning: \(consequence)") }
            if !confirmed {
                switch Terminal.confirm("Remove \(name) from the household? \(consequence). [y/N] ") {
                case true?: break
                case false?: throw WaterError(.cancelled, "\(name) was not removed")
                case nil:
                    throw UsageError(
                        "member rm asks first; say --yes when not asked on a terminal (\(name)'s data stays on the "
                            + "server: member restore \(name) brings them back)")
                }
            }
            let response = try invocation.client().call(WaterV1.RemoveMemberRequest(username: name))
            invocation.output(response) { "removed \(name): \(consequence)" }
        }
    }

    /// "  (admin)", "  (child; guardians: ann, bob)": what a member is beyond their name.
    static func memberNotes(_ member: WaterV1.Member) -> String {
        var notes: [String] = []
        if member.role == .admin { notes.append("admin") }
        if member.child { notes.append("child") }
        if !member.guardians.isEmpty {
            notes.append("guardians: " + member.guardians.map(\.terminalSafe).joined(separator: ", "))
        }
        return notes.isEmpty ? "" : "  (\(notes.joined(separator: "; ")))"
    }

    private static func newPassword(for name: String, _ fromStandardInput: Bool) throws -> String {
        guard
            let password = try Terminal.password(
                fromStandardInput: fromStandardInput, prompt: "password for \(name): ",
                confirm: !fromStandardInput)
        else { throw UsageError("no password given") }
        try SessionCommands.checkLength(password)
        return password
    }
}
