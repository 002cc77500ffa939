/// The hooks of the general task path (`execute(_:state:strategy:frame:slot:)`)
/// for a `read` or `write` step: the step's site words, the wait timed when the
/// operation is, and the fuzz points inside the isolated region (which block
/// the actor's thread). The points around the `await` suspend the task, so
/// the path takes them itself, outside the sequence.
struct TaskStepHooks: StepHooks, Sendable {
    /// The step's index in its operation, its resource, and whether it writes.
    let index: Int, resource: Int, write: Bool

    @inline(__always)
    func waiting(_ frame: inout OpFrame) { frame.publish(step: index, .acquiring, resource: resource, write: write) }

    @inline(__always)
    func asking(_ frame: inout OpFrame, inner: Bool) -> UInt64 { frame.askedAt() }

    @inline(__always)
    func enteredOuter(_ asked: UInt64, _ frame: inout OpFrame) {
        preconditionFailure("the task path runs nested writes its own way")
    }

    @inline(__always)
    func entered(_ asked: UInt64, _ frame: inout OpFrame) {
        frame.entered(asked)
        frame.publish(step: index, .inside, resource: resource, write: write)
        frame.fuzzIsolated(.afterAcquire)
    }

    @inline(__always)
    func leaving(_ frame: inout OpFrame, innermost: Bool) { frame.fuzzIsolated(.beforeRelease) }

    @inline(__always)
    func left(_ frame: inout OpFrame) {}
}
