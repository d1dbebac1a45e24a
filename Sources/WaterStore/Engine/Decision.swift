/// What a commit's `decide` returns: the mutations to apply and journal, and a note of what
/// the reply needs from the state they were decided on, which `result` receives with the
/// state after them. A decision is a value, so nothing has to be smuggled out of `decide`
/// through a captured variable.
public struct Decision<Mutation: Sendable, Note> {
    public var mutations: [Mutation]
    public var note: Note

    public init(_ mutations: [Mutation], note: Note) {
        self.mutations = mutations
        self.note = note
    }
}

extension Decision where Note == Void {
    public init(_ mutations: [Mutation]) {
        self.init(mutations, note: ())
    }
}
