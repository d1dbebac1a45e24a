/// What a commit's `decide` returns: the mutations to apply and journal, and a note of what
/// the reply needs from the state they were decided on, which `result` receives with the
/// state after them. A decision is a value, so nothing has to be smuggled out of `decide`
/// through a captured variable.
public struct Decision<Mutation: Sendable, Note> {
    public var mutations: Mutations<Mutation>
    public var note: Note

    public init(_ mutations: [Mutation], note: Note) {
        self.mutations = Mutations(mutations)
        self.note = note
    }

    /// One mutation, what nearly every request makes: kept without an array, so the write of a
    /// drink allocates nothing for it.
    public init(_ mutation: Mutation, note: Note) {
        self.mutations = Mutations(one: mutation)
        self.note = note
    }
}

extension Decision where Note == Void {
    public init(_ mutations: [Mutation]) {
        self.init(mutations, note: ())
    }

    public init(_ mutation: Mutation) {
        self.init(mutation, note: ())
    }
}

/// The mutations of a decision: one without an array, or any number in one.
public struct Mutations<Mutation: Sendable>: RandomAccessCollection, Sendable {
    private var one: Mutation?
    private var many: [Mutation]

    init(_ many: [Mutation]) {
        (one, self.many) = (nil, many)
    }

    init(one: Mutation) {
        (self.one, many) = (one, [])
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { one == nil ? many.count : 1 }

    public subscript(_ index: Int) -> Mutation {
        one ?? many[index]
    }
}
