/// `unsynchronized`: no protection at all. The control: under two or more
/// threads every workload with shared writes must show violations here, which
/// proves the checks can see a race. Never use it as a baseline for cost without
/// reading its violation count.
package final class UnsynchronizedStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "unsynchronized",
        summary: "no protection (the control that must show violations with 2+ threads)",
        reentrant: true, sharedReads: true, synchronizes: false, primitive: .none
    )

    public init(setup: StrategySetup) throws {}

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { body() }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) { body() }
}
