/// What a program's steps need of a strategy, found once from its steps so
/// the plan loader can refuse a pairing that cannot run, naming why.
public struct StepNeeds: Sendable, Equatable {
    /// Some step holds a resource into a later step (`.hold`/`.release`).
    public var holdsAcrossSteps = false
    /// Some step needs a blocking strategy (holding across steps, nesting
    /// deeper than two).
    public var blockingOnly = false

    /// Some step is `async` (``StepAccess/awaiting``): the workers are tasks,
    /// under every strategy.
    public var awaits = false

    /// The needs of steps that need nothing special: plain guarded or unguarded steps.
    public init() {}

    init(_ accesses: [StepAccess]) {
        holdsAcrossSteps = accesses.contains(where: \.holdsAcrossSteps)
        blockingOnly = accesses.contains { $0.isExtended && !$0.waits }
        awaits = accesses.contains(.awaiting)
    }
}
