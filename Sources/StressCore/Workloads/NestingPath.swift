/// The resources of a ``StepAccess/nestedWrites(_:)`` step, outermost first:
/// two to ``maxDepth`` of them, each below 4096, packed in one word so that a
/// step stays plain data the hot loop copies without reference counting.
public struct NestingPath: Sendable, Hashable {
    private let packed: UInt64

    /// The deepest nesting a path holds.
    public static let maxDepth = 5

    /// The path through `resources`, outermost first; nil when there are
    /// fewer than two or more than ``maxDepth``, or a resource is negative or
    /// 4096 or more.
    ///
    /// - Parameter resources: The resources, outermost first: one to ``maxDepth`` of them, each below 4096.
    public init?(_ resources: [Int]) {
        guard (2...Self.maxDepth).contains(resources.count), resources.allSatisfy({ (0..<4096).contains($0) }) else { return nil }
        var word = UInt64(resources.count)
        for (i, r) in resources.enumerated() { word |= UInt64(r) << (4 + 12 * UInt64(i)) }
        packed = word
    }

    /// How many levels deep.
    public var depth: Int { Int(packed & 0xF) }

    /// The resource at level `level` (0: the outermost).
    ///
    /// - Parameter level: The nesting level, 0 for the outermost.
    /// - Returns: The resource taken at that level.
    public subscript(level: Int) -> Int { Int((packed >> (4 + 12 * UInt64(level))) & 0xFFF) }

    /// The resources, outermost first.
    public var resources: [Int] { (0..<depth).map { self[$0] } }
}
