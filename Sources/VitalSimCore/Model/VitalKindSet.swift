/// A set of reading kinds in two bytes, iterated in ``VitalKind/allCases`` order: the kinds of a
/// request's readings, which a run keeps for every request it sends (an array would be a heap
/// allocation per request).
public struct VitalKindSet: Sendable, Equatable, Sequence {
    private var bits: UInt16 = 0

    /// The empty set.
    public init() {}

    /// The set of `kinds`.
    public init(_ kinds: some Sequence<VitalKind>) {
        for kind in kinds { insert(kind) }
    }

    /// Adds `kind`.
    public mutating func insert(_ kind: VitalKind) { bits |= 1 << kind.ordinal }

    /// Adds every kind of `other`.
    public mutating func formUnion(_ other: VitalKindSet) { bits |= other.bits }

    /// Whether `kind` is in the set.
    public func contains(_ kind: VitalKind) -> Bool { bits & (1 << kind.ordinal) != 0 }

    /// Whether the set holds no kind.
    public var isEmpty: Bool { bits == 0 }

    /// The first kind in ``VitalKind/allCases`` order.
    public var first: VitalKind? { VitalKind.allCases.first(where: contains) }

    /// The kinds in ``VitalKind/allCases`` order.
    public func makeIterator() -> some IteratorProtocol<VitalKind> {
        VitalKind.allCases.lazy.filter(contains).makeIterator()
    }
}
