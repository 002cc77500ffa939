import CStressSupport

/// The steps beyond one critical section per step, under a blocking
/// strategy: a resource held across steps (``StepAccess/hold(_:)`` and
/// ``StepAccess/release(_:)``), a wait for a predicate
/// (``StepAccess/waitUntil(_:timeoutNs:)``) and nesting deeper than two
/// (``StepAccess/nestedWrites(_:)``). They run only in the general loop
/// (``execute(_:_:state:access:frame:)``), never in the loops compiled for
/// speed, so the common steps pay nothing for them.
///
/// What they publish for the watchdog goes beyond the site word, which names
/// one or two resources: every resource a worker keeps while it goes on (a
/// held one, the outer levels of a deep nesting) is also a key on its line,
/// as a harness-aware lock's is, so a cycle through them is seen.
enum ExtendedSteps {
    /// The longest a `waitUntil` step sleeps between looks at whether the
    /// trial stopped (a worker that waits when the window ends must not wait
    /// out its whole timeout).
    static let waitSliceNs: UInt64 = 10_000_000

    /// Runs extended step `step` (index `index` in its operation).
    @inline(never)
    static func run(
        _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ index: Int, state: ErasedState,
        access: BlockingAccess, frame: inout OpFrame
    ) -> StepResult {
        switch step.pointee.access {
        case .hold(let r): return hold(r, step, index, state, access, &frame)
        case .release(let r): return release(r, step, state, access, &frame)
        case .waitUntil(let r, let timeoutNs): return waitUntil(r, timeoutNs, step, index, state, access, &frame)
        case .nestedWrites(let path):
            frame.fuzz(.beforeAcquire)
            frame.probe.publish(step.pointee.waiting)
            let asked = frame.askedAt(step: index)
            var result = StepResult.next
            nest(path, level: 0, step, state, access, asked, &frame, &result)
            if access.waits {
                for level in 0..<path.depth { access.signalAfter(path[level]) }
            }
            frame.fuzz(.afterRelease)
            return result
        default:
            preconditionFailure("ExtendedSteps.run is for extended steps only")
        }
    }

    /// Gives back whatever the operation still holds (it ended early, or
    /// without its release steps): called as every operation ends.
    static func releaseHeld(_ access: BlockingAccess, _ frame: inout OpFrame) {
        guard let holding = access.holding else { return }
        var mask = frame.heldMask
        while mask != 0 {
            let r = mask.trailingZeroBitCount
            mask &= mask &- 1
            stress_unhold(access.key(r))
            access.signalInside(r)
            holding.release(r)
            access.shadow?.leave(r, worker: frame.thread)
            access.signalAfter(r)
        }
        frame.heldMask = 0
    }

    private static func hold(
        _ r: Int, _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ index: Int, _ state: ErasedState,
        _ access: BlockingAccess, _ frame: inout OpFrame
    ) -> StepResult {
        guard let holding = access.holding else { preconditionFailure("plans pair hold steps only with holding strategies") }
        guard frame.heldMask & (1 << UInt64(r)) == 0 else {
            return .violation("holds resource \(r) again while the operation already holds it (a hold step of the same resource before its release)")
        }
        frame.fuzz(.beforeAcquire)
        frame.probe.publish(step.pointee.waiting)
        let asked = frame.askedAt(step: index)
        access.shadow?.enter(r, write: true, worker: frame.thread)
        holding.acquire(r)
        frame.entered(asked)
        stress_hold(access.key(r))
        frame.heldMask |= 1 << UInt64(r)
        frame.probe.publish(step.pointee.inside)
        frame.fuzz(.afterAcquire)
        return step.pointee.call(state, &frame)
    }

    private static func release(
        _ r: Int, _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ state: ErasedState,
        _ access: BlockingAccess, _ frame: inout OpFrame
    ) -> StepResult {
        guard let holding = access.holding else { preconditionFailure("plans pair release steps only with holding strategies") }
        guard frame.heldMask & (1 << UInt64(r)) != 0 else {
            return .violation("releases resource \(r), which the operation does not hold (no hold step of it came before)")
        }
        frame.probe.publish(step.pointee.inside)
        let result = step.pointee.call(state, &frame)
        frame.fuzz(.beforeRelease)
        stress_unhold(access.key(r))
        frame.heldMask &= ~(1 << UInt64(r))
        access.signalInside(r)
        holding.release(r)
        access.shadow?.leave(r, worker: frame.thread)
        access.signalAfter(r)
        frame.fuzz(.afterRelease)
        return result
    }

    /// Takes `path[level]` and, inside it, the levels below; the body runs
    /// inside the last.
    private static func nest(
        _ path: NestingPath, level: Int, _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ state: ErasedState,
        _ access: BlockingAccess, _ asked: UInt64, _ frame: inout OpFrame, _ result: inout StepResult
    ) {
        let r = path[level]
        let site = step.pointee.site
        let last = level == path.depth - 1
        // Under control: each level is taken in the model first (the outer
        // one's fuzz point came before the call), and given back after.
        access.shadow?.enter(r, write: true, worker: frame.thread)
        defer { access.shadow?.leave(r, worker: frame.thread) }
        access.strategy.write(r) {
            if level == 0 { frame.entered(asked) }
            if last {
                frame.probe.publish(SiteWord(site: site, phase: .insideInner, resource: path[level - 1], inner: r, write: true))
                frame.fuzz(.afterAcquire)
                result = step.pointee.call(state, &frame)
                if access.waits {
                    for outer in 0...level { access.signalInside(path[outer]) }
                }
                frame.fuzz(.beforeRelease)
                return
            }
            // Kept while the levels below are taken: on the line, as the
            // site word names only the innermost pair.
            stress_hold(access.key(r))
            frame.fuzz(.afterAcquire)
            frame.probe.publish(SiteWord(site: site, phase: .acquiringInner, resource: r, inner: path[level + 1], write: true))
            frame.fuzz(.beforeAcquire)
            nest(path, level: level + 1, step, state, access, asked, &frame, &result)
            frame.fuzz(.beforeRelease)
            stress_unhold(access.key(r))
        }
    }

    private static func waitUntil(
        _ r: Int, _ timeoutNs: Int, _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ index: Int,
        _ state: ErasedState, _ access: BlockingAccess, _ frame: inout OpFrame
    ) -> StepResult {
        guard let predicate = step.pointee.predicate else { preconditionFailure("a waitUntil step has a predicate") }
        let deadline = MonotonicClock.now() &+ UInt64(timeoutNs)
        // Made only when the wait runs out: built eagerly, its message was two
        // allocations in every operation's hot loop.
        func timedOut() -> StepResult {
            .violation("waited \(Quantities.format(nanoseconds: UInt64(timeoutNs))) for the condition of step "
                       + "'\(access.labels[step.pointee.site])' on resource \(r), and it never held")
        }
        frame.fuzz(.beforeAcquire)
        let asked = frame.askedAt(step: index)
        frame.probe.publish(step.pointee.waiting)
        if let conditions = access.conditions {
            // The strategy's own condition: wait on it holding the lock, as
            // code using the primitive directly would.
            var result = StepResult.next
            access.strategy.write(r) {
                frame.entered(asked)
                frame.probe.publish(step.pointee.inside)
                frame.fuzz(.afterAcquire)
                while !predicate.call(state, &frame) {
                    let now = MonotonicClock.now()
                    guard now < deadline else {
                        result = timedOut()
                        return
                    }
                    guard !access.trialStopped else {
                        result = .finish  // nobody is left to make it hold
                        return
                    }
                    frame.fuzz(.beforeRelease)
                    frame.probe.publish(step.pointee.waitingInner)
                    stress_wait_begin(WaitKey.signal(r), UInt64(STRESS_WAIT_CONDITION))
                    _ = conditions.wait(r, untilNanoseconds: Swift.min(deadline, now &+ ExtendedSteps.waitSliceNs))
                    stress_wait_end()
                    frame.probe.publish(step.pointee.inside)
                    frame.fuzz(.afterAcquire)
                }
                result = step.pointee.call(state, &frame)
                conditions.broadcast(r)
                frame.fuzz(.beforeRelease)
            }
            frame.fuzz(.afterRelease)
            return result
        }
        // The engine's signal: look under the strategy's access, and between
        // two looks wait for another worker's exclusive access to end.
        guard let signals = access.signals else { preconditionFailure("a program that waits has signals or conditions") }
        signals.beginWaiting(r)
        defer { signals.endWaiting(r) }
        while true {
            let generation = signals.generation(r)
            var result: StepResult?
            access.strategy.write(r) {
                frame.entered(asked)
                frame.probe.publish(step.pointee.inside)
                frame.fuzz(.afterAcquire)
                if predicate.call(state, &frame) { result = step.pointee.call(state, &frame) }
                frame.fuzz(.beforeRelease)
            }
            frame.fuzz(.afterRelease)
            if let result {
                signals.changed(r)
                return result
            }
            let now = MonotonicClock.now()
            guard now < deadline else { return timedOut() }
            guard !access.trialStopped else { return .finish }  // nobody is left to make it hold
            frame.probe.publish(step.pointee.waitingInner)
            stress_wait_begin(WaitKey.signal(r), UInt64(STRESS_WAIT_CONDITION))
            signals.wait(r, from: generation, until: Swift.min(deadline, now &+ ExtendedSteps.waitSliceNs))
            stress_wait_end()
            frame.probe.publish(step.pointee.waiting)
        }
    }

    /// Runs a write step's section when its program has `waitUntil` steps:
    /// the end of every exclusive access to a resource is a signal to them.
    @inline(never)
    static func notifyingWrite(_ r: Int, _ access: BlockingAccess, _ body: () -> Void) {
        access.strategy.write(r) {
            body()
            access.signalInside(r)
        }
        access.signalAfter(r)
    }
}
