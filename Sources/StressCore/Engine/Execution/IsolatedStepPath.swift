extension StepPath {
    /// The same sequence under an isolating strategy, from a task: publish the
    /// step waiting, ask for the isolation (an `await`), and in the isolated
    /// region publish it inside and run the body, then leave. The frame is
    /// the one in `slot`, which the isolated region writes through while the
    /// task is suspended in the `await`. A `read` or a `write` step; the
    /// general task path runs nested writes and `waitUntil` its own way.
    ///
    /// Always inlined, and generic over the strategy, so the loop compiled
    /// for an actor strategy's type (``_MeasuredTaskLoop``) has the actor's
    /// method specialized and the hooks it does not need compiled out. The
    /// hooks are copied into the isolated region (it is `@Sendable`), so
    /// what they change there is not seen after it.
    @inline(__always)
    static func run<S: IsolatingStrategy, H: StepHooks & Sendable>(
        _ access: StepAccess, _ strategy: S, _ hooks: H, slot: FrameSlot, body: @Sendable (inout OpFrame) -> StepResult
    ) async -> StepResult {
        var outside = hooks
        outside.waiting(&slot.pointer.pointee)
        let asked = outside.asking(&slot.pointer.pointee, inner: false)
        // The closures are written at each call so they stay non-escaping:
        // their context lives on the task's stack, not the heap.
        let result: StepResult
        switch access {
        case .read(let r):
            result = await strategy.read(r) { isolatedSection(hooks, asked, slot, body) }
        case .write(let r):
            result = await strategy.write(r) { isolatedSection(hooks, asked, slot, body) }
        default:
            preconditionFailure("the task path runs only read and write steps through the step sequence")
        }
        outside.left(&slot.pointer.pointee)
        return result
    }

    /// The inside of ``run(_:_:_:slot:body:)``'s isolated region: entered,
    /// the body marked as running in an actor's isolated code (its fuzz
    /// points then block the actor's thread, as a slow actor method would),
    /// leaving.
    @inline(__always)
    private static func isolatedSection<H: StepHooks>(
        _ hooks: H, _ asked: UInt64, _ slot: FrameSlot, _ body: (inout OpFrame) -> StepResult
    ) -> StepResult {
        var inside = hooks
        inside.entered(asked, &slot.pointer.pointee)
        slot.pointer.pointee.insideActor = true
        let result = body(&slot.pointer.pointee)
        slot.pointer.pointee.insideActor = false
        inside.leaving(&slot.pointer.pointee, innermost: true)
        return result
    }
}
