/// What ``Archive/commitReturning(_:result:)`` gives back: the value made of the state after
/// the write, and the group of the shared log the write was queued in. A reply that tells of
/// the write is refused only when that group fails; it may wait for a later one (what else it
/// showed), but a later group's failure says nothing about this write.
public struct Committed<Value> {
    public var value: Value
    public var group: UInt64
}
