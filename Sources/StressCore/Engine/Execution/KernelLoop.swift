import CStressSupport

// The measured loop for a worker whose only operation is one kernel step
// (``StepKernel``): compiled for the pair of kernel and strategy, reached
// through the kernel (``StepKernel/_runMeasuredLoop(_:_:)``), which walks the
// built-in strategies' registration (``StressRegistry/builtInStrategies``).

extension _MeasuredLoop {
    /// The kernel of the worker's only operation, when that operation is one
    /// step made from a ``StepKernel``: the engine then runs
    /// ``run(_:kernel:)`` through the kernel, which compiles it for the pair.
    var soleKernel: (any StepKernel)? {
        worker.pointee.picker.single.flatMap(program.soleKernel(ofOperation:))
    }

    /// The most untimed operations a kernel batch runs. The trial's phase is
    /// looked at once per batch, so a stop (or another worker's violation with
    /// `stop_on_violation`) is seen at most this many operations late: about
    /// a millisecond for operations of a microsecond (`auto` times every
    /// operation of 1.5 µs or more, in batches of at most
    /// ``timedBatchNs``). As many as ``TimingSettings/autoMaxInterval``, so
    /// that the untimed stretch between two sampled operations is one batch,
    /// not two to four: each batch's end (the phase, the published words, the
    /// counts, the call) is some 100 instructions (callgrind, 1-thread
    /// counter: 0.3 instructions per operation fewer than with batches of 256).
    static let kernelBatch = TimingSettings.autoMaxInterval

    /// The loop of ``run(_:)`` for a worker whose only operation is one step of
    /// kernel `kernel`, with the kernel's and the strategy's types known, so
    /// that an untimed operation is the lock, the kernel's body inlined, and
    /// the frame's reset (``kernelBatch(_:_:_:_:_:_:frame:)``). A worker that
    /// times every operation on the CPU's counter (`sample: 1`, or `auto`
    /// having picked 1) runs them in batches too
    /// (``timedKernelBatch(_:_:_:_:_:_:batchTicks:frame:timing:)``); a sampled
    /// operation, or one on the monotonic clock, is timed on its own as in
    /// ``run(_:)``, with the kernel's body inlined there too.
    ///
    /// What the worker books and publishes, it does here, once per batch: the
    /// step's site word before it, the word between operations, the progress,
    /// the count and the operation number after it (a store per operation is
    /// a store the lock's atomic instruction must wait for). A worker stuck in
    /// a batch is reported at the step, acquiring, whether it waits for the
    /// section or is inside it.
    func run<S: BlockingStrategy, K: StepKernel>(_ strategy: S, kernel: K) {
        guard let only = worker.pointee.picker.single, let typed = state as? K.State else {
            worker.pointee.measuredLoop = .compiledForStrategy
            run(strategy)
            return
        }
        let w = worker
        let op = program.operations[only]
        let waiting = op.steps.pointee.waiting
        let access = op.steps.pointee.access
        let probe = w.pointee.frame.probe
        let clock = w.pointee.clock
        let batchTicks = UInt64(Double(Self.timedBatchNs) / clock.nanosecondsPerTick)
        var left = operations ?? Int.max
        while left > 0 && control.current != TrialControl.stop {
            let everyTimed = w.pointee.timesEveryOperation && clock.source == .tsc
            let count = Swift.min(everyTimed ? Int.max : w.pointee.countdown, left, Self.kernelBatch)
            guard count > 0 else {
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
            let ran: Int, violation: String?
            if everyTimed {
                // The record and the frame are both the worker's: the record
                // goes by way of a local, as the two cannot be lent `inout`
                // from the one worker at once.
                var timing = w.pointee.timing
                (ran, violation) = timedKernelBatch(
                    count, first, access, strategy, kernel, typed, batchTicks: batchTicks,
                    frame: &w.pointee.frame, timing: &timing
                )
                w.pointee.timing = timing
            } else {
                (ran, violation) = kernelBatch(count, first, access, strategy, kernel, typed, frame: &w.pointee.frame)
                w.pointee.ranUntimed(ran)
            }
            probe.publish(op.between)
            w.pointee.opNumber = first &+ ran
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
        // A kernel that never writes registers 4 and up gets them zeroed once,
        // here, and its loop does not look at them per operation. The cast is of a
        // type this copy of the function knows, so it folds to a constant and
        // only one of the two loops is compiled.
        let fourRegisters = K.self is any FourRegisterKernel.Type
        if fourRegisters { frame.resetExtraRegisters() }
        // A kernel that takes what it needs of the state once per batch
        // (``BatchBoundKernel``) takes it here; the cast folds in the same way.
        if let bindable = kernel as? any BatchBoundKernel {
            return Self.boundKernelBatch(count, first, access, strategy, bindable, state, fourRegisters, &frame)
        }
        if fourRegisters {
            return Self.kernelBatch(count, first, access, strategy, fourRegisters: true, &frame) { kernel.run(state, &$0) }
        }
        return Self.kernelBatch(count, first, access, strategy, fourRegisters: false, &frame) { kernel.run(state, &$0) }
    }

    /// ``kernelBatch(_:_:_:_:_:_:frame:)`` for a kernel that binds the state
    /// once per batch: the bound value is a local of the loop, which the
    /// compiler keeps in a register through the lock's calls.
    @inline(__always)
    private static func boundKernelBatch<S: BlockingStrategy, B: BatchBoundKernel>(
        _ count: Int, _ first: Int, _ access: StepAccess, _ strategy: S, _ kernel: B, _ state: AnyObject,
        _ fourRegisters: Bool, _ frame: inout OpFrame
    ) -> (ran: Int, violation: String?) {
        // The caller's state is this kernel's: the caller's kernel type is `B`.
        let bound = kernel.bind(unsafeDowncast(state, to: B.State.self))
        if fourRegisters {
            return kernelBatch(count, first, access, strategy, fourRegisters: true, &frame) { kernel.run(bound: bound, &$0) }
        }
        return kernelBatch(count, first, access, strategy, fourRegisters: false, &frame) { kernel.run(bound: bound, &$0) }
    }

    /// ``kernelBatch(_:_:_:_:_:_:frame:)``'s loops, with `fourRegisters`
    /// a constant of the caller's (see ``FourRegisterKernel``) and `body`
    /// the kernel's body.
    @inline(__always)
    private static func kernelBatch<S: BlockingStrategy>(
        _ count: Int, _ first: Int, _ access: StepAccess, _ strategy: S,
        fourRegisters: Bool, _ frame: inout OpFrame, _ body: (inout OpFrame) -> StepResult
    ) -> (ran: Int, violation: String?) {
        // Each case hands the one step sequence a constant access, so its
        // switch folds away and each loop is that access's alone.
        switch access {
        // Resource 0, the one every one-resource workload guards, as a
        // constant too: a strategy's lookup of the resource's lock then folds
        // to the lock itself (an object from a stored `let`, see
        // ``ObjectTable``, or a fixed address), loaded once before the loop, as
        // an application's lock in a stored property is. With the index a
        // variable, nslock's loop loaded the table's count, the lock and its
        // class on every operation.
        case .read(0):
            return kernelLoop(count, first, fourRegisters, &frame) { frame in kernelStep(.read(0), strategy, &frame, body) }
        case .write(0):
            return kernelLoop(count, first, fourRegisters, &frame) { frame in kernelStep(.write(0), strategy, &frame, body) }
        case .read(let r):
            return kernelLoop(count, first, fourRegisters, &frame) { frame in kernelStep(.read(r), strategy, &frame, body) }
        case .write(let r):
            return kernelLoop(count, first, fourRegisters, &frame) { frame in kernelStep(.write(r), strategy, &frame, body) }
        case .unguarded:
            return kernelLoop(count, first, fourRegisters, &frame) { frame in kernelStep(.unguarded, strategy, &frame, body) }
        case .nestedWrite(let outer, let inner):
            return kernelLoop(count, first, fourRegisters, &frame) { frame in
                kernelStep(.nestedWrite(outer: outer, inner: inner), strategy, &frame, body)
            }
        case .nestedWrites, .hold, .release, .waitUntil, .awaiting:
            // The engine runs programs with these in its general loop only.
            preconditionFailure("extended and async steps never reach the loop compiled for speed")
        }
    }

    /// One untimed kernel operation: the step sequence with no hooks.
    @inline(__always)
    private static func kernelStep<S: BlockingStrategy>(
        _ access: StepAccess, _ strategy: S, _ frame: inout OpFrame, _ body: (inout OpFrame) -> StepResult
    ) -> StepResult {
        var hooks = KernelStepHooks()
        return StepPath.run(access, strategy, &hooks, frame: &frame, body: body)
    }

    /// The loop of ``kernelBatch(_:_:_:_:_:_:frame:)``: per operation, the
    /// frame's reset (``OpFrame/resetForOperation(number:)``) and `body`,
    /// nothing else. A violation ends the batch at once, so that
    /// the trial's phase is looked at again before the next operation.
    /// With `fourRegisters`, registers 4 and up are not looked at
    /// (``FourRegisterKernel``).
    @inline(__always)
    private static func kernelLoop(
        _ count: Int, _ first: Int, _ fourRegisters: Bool, _ frame: inout OpFrame, _ body: (inout OpFrame) -> StepResult
    ) -> (ran: Int, violation: String?) {
        let last = first &+ count
        var number = first
        repeat {
            if fourRegisters { frame.resetFourRegisters(number: number) } else { frame.resetForOperation(number: number) }
            number &+= 1
            if case .violation(let message) = body(&frame) { return (number &- first, message) }
        } while number != last
        return (count, nil)
    }

    /// The longest a batch of timed operations goes on, in nanoseconds, before
    /// the trial's phase is looked at again (besides ``kernelBatch``
    /// operations at most): it bounds how late a stop is seen when every
    /// operation is timed because each takes microseconds (`auto` times all of
    /// those), at the cost of a compare per operation, since each operation's
    /// end is read anyway.
    static let timedBatchNs = 20_000

    /// ``kernelBatch(_:_:_:_:_:_:frame:)`` with every operation timed, for a
    /// worker that times them all (``Worker/timesEveryOperation``) on the CPU's
    /// counter: three counter reads for a guarded step (the start, the moment
    /// it acquired, the end; two for an unguarded one), and the operation
    /// recorded in `timing` with a weight of 1. Ends early, after the
    /// operation that crosses it, when the batch has run `batchTicks`.
    ///
    /// The counter is read with `stress_ticks()` directly, not through
    /// ``TimeSource``: the loop then has no branch on the clock and no call of
    /// `clock_gettime` on a path not taken, whose registers the compiler must
    /// otherwise keep free around it. A worker on the monotonic clock times
    /// its operations one at a time instead.
    @inline(never)
    private func timedKernelBatch<S: BlockingStrategy, K: StepKernel>(
        _ count: Int, _ first: Int, _ access: StepAccess, _ strategy: S, _ kernel: K, _ state: K.State,
        batchTicks: UInt64, frame: inout OpFrame, timing: inout TimingRecord
    ) -> (ran: Int, violation: String?) {
        // As in ``kernelBatch(_:_:_:_:_:_:frame:)``: a constant access per loop.
        switch access {
        case .read(let r):
            return Self.timedKernelLoop(count, first, batchTicks, guarded: true, &frame, &timing) { frame in
                Self.timedKernelStep(.read(r), strategy, kernel, state, &frame)
            }
        case .write(let r):
            return Self.timedKernelLoop(count, first, batchTicks, guarded: true, &frame, &timing) { frame in
                Self.timedKernelStep(.write(r), strategy, kernel, state, &frame)
            }
        case .unguarded:
            return Self.timedKernelLoop(count, first, batchTicks, guarded: false, &frame, &timing) { frame in
                Self.timedKernelStep(.unguarded, strategy, kernel, state, &frame)
            }
        case .nestedWrite(let outer, let inner):
            return Self.timedKernelLoop(count, first, batchTicks, guarded: true, &frame, &timing) { frame in
                Self.timedKernelStep(.nestedWrite(outer: outer, inner: inner), strategy, kernel, state, &frame)
            }
        case .nestedWrites, .hold, .release, .waitUntil, .awaiting:
            // The engine runs programs with these in its general loop only.
            preconditionFailure("extended and async steps never reach the loop compiled for speed")
        }
    }

    /// One timed kernel operation: the step sequence with the hook that reads
    /// the CPU's counter as the step's section is entered
    /// (``TimedKernelStepHooks``). Returns the step's result and that reading
    /// (0 for an unguarded step).
    @inline(__always)
    private static func timedKernelStep<S: BlockingStrategy, K: StepKernel>(
        _ access: StepAccess, _ strategy: S, _ kernel: K, _ state: K.State, _ frame: inout OpFrame
    ) -> (StepResult, UInt64) {
        var hooks = TimedKernelStepHooks()
        let result = StepPath.run(access, strategy, &hooks, frame: &frame) { kernel.run(state, &$0) }
        return (result, hooks.acquired)
    }

    /// The loop of ``timedKernelBatch(_:_:_:_:_:_:batchTicks:frame:timing:)``:
    /// per operation, the frame's reset, the start's counter read, `body`
    /// (which returns the step's result and the counter's reading when it
    /// acquired, if the step is `guarded`), the end's counter read, and the
    /// record of the operation before it.
    ///
    /// Why one operation late: a counter read takes some 35 cycles to deliver
    /// its value, and the next lock's atomic instruction cannot run until
    /// every store before it is done. Recording an operation as soon as it
    /// ends is a store whose address depends on that last read (the bucket),
    /// so every lock waited out the read: 10 ns an operation on the reference
    /// machine. The previous operation's values are long known, so its record
    /// delays nothing, and the reads overlap the lock as in a hand-written
    /// loop that only sums them (`stressbench-dev baseline mutex-timed`). The
    /// same records, in the same order; the last one is made as the batch
    /// ends. For the same reason the loop keeps as few values as it can
    /// across the lock (the samples are counted once, the batch's end is one
    /// deadline): a value the compiler has no register for is stored to the
    /// stack, and if that is a fresh counter reading, the lock waits for it.
    @inline(__always)
    private static func timedKernelLoop(
        _ count: Int, _ first: Int, _ batchTicks: UInt64, guarded: Bool, _ frame: inout OpFrame,
        _ timing: inout TimingRecord, _ body: (inout OpFrame) -> (StepResult, UInt64)
    ) -> (ran: Int, violation: String?) {
        // Copies of the two in locals for the batch, put back when it ends:
        // the compiler kept the `inout` originals in memory here (the
        // histograms' stores through a pointer may, as far as it knows, land
        // on them), a store and a load per field per operation; locals that
        // nothing can point at stay in registers.
        var frameHere = frame, timingHere = timing
        // The operation ended last, not yet recorded.
        var service: UInt64 = 0, acquire: UInt64 = 0, end: UInt64 = 0
        let last = first &+ count
        var number = first
        defer {
            timingHere.recordUncounted(service: service, acquire: acquire, acquired: guarded, end: end)
            timingHere.addSamples(number &- first, acquired: guarded)
            frame = frameHere
            timing = timingHere
        }
        let deadline = stress_ticks() &+ batchTicks
        repeat {
            frameHere.resetForOperation(number: number)
            let start = stress_ticks()
            let (result, acquired) = body(&frameHere)
            let now = stress_ticks()
            if number != first { timingHere.recordUncounted(service: service, acquire: acquire, acquired: guarded, end: end) }
            number &+= 1
            service = now &- start
            acquire = acquired &- start
            end = now
            if case .violation(let message) = result { return (number &- first, message) }
            if now > deadline { break }
        } while number != last
        return (number &- first, nil)
    }
}
