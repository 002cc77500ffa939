import Synchronization

/// How the engine calls one trial's blocking strategy. A class, so the hot
/// loop passes one pointer rather than an existential and two more fields.
final class BlockingAccess: Sendable {
    let strategy: any BlockingStrategy
    /// The same strategy when it takes ``CriticalSection`` values (to pass them to C).
    let sections: (any SectionPassingStrategy)?
    /// Set for fire-and-forget writers (``StrategyDescriptor/asynchronousWrites``).
    let deferredWrites: DeferredViolations?
    /// "operation/step" by site id, to name a violation found by a deferred write.
    let labels: [String]
    /// The same strategy when it can hold a resource across steps.
    let holding: (any HoldingStrategy)?
    /// Whether the program has `waitUntil` steps: the end of every exclusive
    /// access to a resource then signals them.
    let waits: Bool
    /// The same strategy when the program waits and it has a condition of its own.
    let conditions: (any ConditionWaitingStrategy)?
    /// The engine's per-resource signals, when the program waits and the
    /// strategy has no condition.
    let signals: ResourceSignals?
    /// Whether the program has steps only the general loop runs.
    let hasExtendedSteps: Bool
    /// The trial's control (an unretained address; 0 until ``attach(_:)``):
    /// a `waitUntil` step gives up quietly once the trial stops, rather than
    /// wait out its timeout for workers that have left.
    private let controlAddress = Atomic<UInt>(0)

    /// Lets `waitUntil` steps see the trial stop. `control` outlives every worker.
    func attach(_ control: TrialControl) {
        controlAddress.store(UInt(bitPattern: Unmanaged.passUnretained(control).toOpaque()), ordering: .releasing)
    }

    /// Whether the trial has stopped (its window ended, or its first violation stopped it).
    var trialStopped: Bool {
        let address = controlAddress.load(ordering: .acquiring)
        guard address != 0, let raw = UnsafeMutableRawPointer(bitPattern: address) else { return false }
        return Unmanaged<TrialControl>.fromOpaque(raw).takeUnretainedValue().current == TrialControl.stop
    }
    private let singleDomain: Bool
    private let mainQueue: Bool

    /// Under controlled scheduling: the model of the strategy's sections
    /// (nil in a free-running trial, and for strategies that exclude nothing).
    let shadow: SectionShadow?

    init(_ strategy: any BlockingStrategy, labels: [String], resources: Int = 1, extendedSteps: Bool = false, waits: Bool = false,
         controlled: ControlledScheduler? = nil) {
        self.strategy = strategy
        sections = strategy as? any SectionPassingStrategy
        self.labels = labels
        let descriptor = type(of: strategy).descriptor
        deferredWrites = descriptor.asynchronousWrites ? DeferredViolations() : nil
        holding = strategy as? any HoldingStrategy
        self.waits = waits
        conditions = waits ? strategy as? any ConditionWaitingStrategy : nil
        signals = waits && conditions == nil ? ResourceSignals(resources: Swift.max(1, resources)) : nil
        hasExtendedSteps = extendedSteps || waits
        singleDomain = descriptor.singleDomain
        mainQueue = descriptor.primitive == .mainQueue
        shadow = controlled.flatMap { SectionShadow($0, descriptor) }
    }

    /// Signals `waitUntil` steps, called holding `r` exclusively (a strategy's own condition).
    @inline(__always)
    func signalInside(_ r: Int) { conditions?.broadcast(r) }

    /// Signals `waitUntil` steps, called once an exclusive access to `r` ended (the engine's signal).
    @inline(__always)
    func signalAfter(_ r: Int) { signals?.changed(r) }

    /// The wait-for graph's key of resource `r` (see ``WaitForGraph``).
    @inline(__always)
    func key(_ r: Int) -> UInt64 {
        mainQueue ? WaitKey.mainQueue : WaitKey.strategyResource(singleDomain ? 0 : r)
    }
}
