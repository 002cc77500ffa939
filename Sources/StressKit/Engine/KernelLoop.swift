// The measured loop for a worker whose only operation is one kernel step
// (``StepKernel``): compiled for the pair of kernel and strategy, reached
// through the kernel (``StepKernel/_runMeasuredLoop(_:_:)``), which names the
// built-in strategies once (``StressRegistry/runKernelLoop(_:_:kernel:)``).

extension _MeasuredLoop {
    /// The kernel of the worker's only operation, when that operation is one
    /// step made from a ``StepKernel``: the engine then runs
    /// ``run(_:kernel:)`` through the kernel, which compiles it for the pair.
    var soleKernel: (any StepKernel)? {
        worker.pointee.picker.single.flatMap(program.soleKernel(ofOperation:))
    }

    /// The most untimed operations a kernel batch runs. The trial's phase is
    /// looked at once per batch, so a stop (or another worker's violation with
    /// `stop_on_violation`) is seen at most this many operations late: well
    /// under a millisecond for the operations that come here, whose cost is a
    /// few to a few hundred nanoseconds.
    static let kernelBatch = 256

    /// The loop of ``run(_:)`` for a worker whose only operation is one step of
    /// kernel `kernel`, with the kernel's and the strategy's types known, so
    /// that an untimed operation is the lock, the kernel's body inlined, and
    /// the frame's reset (``kernelBatch(_:_:_:_:_:_:frame:)``). Timed operations
    /// are timed as in ``run(_:)``, with the kernel's body inlined there too.
    ///
    /// What the worker books and publishes, it does here, once per batch: the
    /// step's site word before it, the word between operations, the progress,
    /// the count and the operation number after it (a store per operation is
    /// a store the lock's atomic instruction must wait for). A worker stuck in
    /// a batch is reported at the step, acquiring, whether it waits for the
    /// section or is inside it.
    func run<S: BlockingStrategy, K: StepKernel>(_ strategy: S, kernel: K) {
        guard let only = worker.pointee.picker.single, let typed = state as? K.State else {
            run(strategy)
            return
        }
        let w = worker
        let op = program.operations[only]
        let waiting = op.steps.pointee.waiting
        let access = op.steps.pointee.access
        let probe = w.pointee.frame.probe
        var left = operations ?? Int.max
        while left > 0 && control.current != TrialControl.stop {
            let untimed = Swift.min(w.pointee.countdown, left, Self.kernelBatch)
            guard untimed > 0 else {
                timedOperation { op, frame, probe in
                    let result = directStep(op.pointee.steps.pointee, 0, strategy, frame: &frame, probe: probe, timed: true) {
                        kernel.run(typed, &$0)
                    }
                    probe.publish(op.pointee.between)
                    return (result, 0)
                }
                left &-= 1
                continue
            }
            let first = w.pointee.opNumber
            w.pointee.frame.siteBase = op.siteBase
            probe.publish(waiting)
            let (ran, violation) = kernelBatch(untimed, first, access, strategy, kernel, typed, frame: &w.pointee.frame)
            probe.publish(op.between)
            w.pointee.opNumber = first &+ ran
            w.pointee.ranUntimed(ran)
            left &-= ran
            if let message = violation {
                // The last one ran is the violation: ``Worker/end(_:_:step:measured:)``
                // counts it, books it, and publishes the progress.
                w.pointee.counts[only] &+= ran &- 1
                w.pointee.end(only, .violation(message), step: 0, measured: true)
            } else {
                w.pointee.counts[only] &+= ran
                probe.completed(first &+ ran)
            }
        }
    }

    /// Up to `count` untimed operations of kernel `kernel`, numbered from
    /// `first`, under `access`: a loop for each kind of access (looked at once per batch),
    /// each with the strategy's calls and the kernel's body inlined. Returns
    /// how many ran, and the message of the violation that ended the batch
    /// early, if one did (it is the last operation counted in `ran`).
    ///
    /// It touches nothing of the worker's but `frame`, which it gets `inout`:
    /// the compiler may then keep the frame's fields in registers for the
    /// whole batch (nothing else can see them meanwhile), so the operation's
    /// number and the registers' reset cost no memory access per operation.
    @inline(never)
    private func kernelBatch<S: BlockingStrategy, K: StepKernel>(
        _ count: Int, _ first: Int, _ access: StepAccess, _ strategy: S, _ kernel: K, _ state: K.State, frame: inout OpFrame
    ) -> (ran: Int, violation: String?) {
        switch access {
        case .read(let r):
            return Self.kernelLoop(count, first, &frame) { frame in
                var result = StepResult.next
                strategy.read(r) { result = kernel.run(state, &frame) }
                return result
            }
        case .write(let r):
            return Self.kernelLoop(count, first, &frame) { frame in
                var result = StepResult.next
                strategy.write(r) { result = kernel.run(state, &frame) }
                return result
            }
        case .unguarded:
            return Self.kernelLoop(count, first, &frame) { frame in kernel.run(state, &frame) }
        case .nestedWrite(let outer, let inner):
            return Self.kernelLoop(count, first, &frame) { frame in
                var result = StepResult.next
                strategy.write(outer) { strategy.write(inner) { result = kernel.run(state, &frame) } }
                return result
            }
        }
    }

    /// The loop of ``kernelBatch(_:_:_:_:_:_:frame:)``: per operation, the
    /// frame's reset (``OpFrame/resetForOperation(number:)``) and `body`,
    /// nothing else. A violation ends the batch at once, so that
    /// the trial's phase is looked at again before the next operation.
    @inline(__always)
    private static func kernelLoop(
        _ count: Int, _ first: Int, _ frame: inout OpFrame, _ body: (inout OpFrame) -> StepResult
    ) -> (ran: Int, violation: String?) {
        let last = first &+ count
        var number = first
        repeat {
            frame.resetForOperation(number: number)
            number &+= 1
            if case .violation(let message) = body(&frame) { return (number &- first, message) }
        } while number != last
        return (count, nil)
    }
}
