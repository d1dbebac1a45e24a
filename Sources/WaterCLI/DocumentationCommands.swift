/// `completion SHELL` and `manpage`, which both programs have: what deploy/install puts where
/// shells and man look for them.
extension ProgramSpec {
    public func printCompletion(_ arguments: inout Arguments) throws(UsageError) {
        let name = try arguments.onlyPositional(missing: "completion needs a shell: bash, zsh or fish")
        guard let shell = Shell(rawValue: name) else {
            throw UsageError(
                "completion knows bash, zsh and fish, not \"\(name)\""
                    + Suggestion.didYouMean(name, among: Shell.allCases.map(\.rawValue)))
        }
        Terminal.write(1, completion(for: shell))
    }

    public func printManualPage(_ arguments: inout Arguments) throws(UsageError) {
        try arguments.finish()
        Terminal.write(1, manualPage)
    }
}
