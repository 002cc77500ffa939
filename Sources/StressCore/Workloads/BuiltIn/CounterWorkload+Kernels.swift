/// The counter's step bodies, as kernels (``StepKernel``): the engine compiles
/// them into its loop, so that the counter under a lock measures the lock and
/// not a call per operation.
extension CounterWorkload {
    /// `add`: the increment, under the write lock.
    struct Add: StepKernel {
        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult { run(bound: bind(state), &frame) }

        /// The counter's address (see ``BatchBoundKernel``).
        @inline(__always)
        func bind(_ state: State) -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(state.value) }

        @inline(__always)
        func run(bound value: UnsafeMutableRawPointer, _ frame: inout OpFrame) -> StepResult {
            value.assumingMemoryBound(to: Int.self).pointee &+= 1
            return .next
        }

        /// The same with a fuzz point between the load and the store, where
        /// an unguarded increment's race lies: controlled scheduling switches
        /// workers only at points, so without one it could never show the
        /// lost update.
        @inline(__always)
        func runWithFuzzPoints(_ state: State, _ frame: inout OpFrame) -> StepResult {
            let loaded = state.value.pointee
            frame.traceValue("read count", loaded)
            frame.fuzzPoint()
            state.value.pointee = loaded &+ 1
            frame.traceValue("write count =", loaded &+ 1)
            return .next
        }
    }

    /// `load` of a read: the value, checked never to go back for this thread.
    struct Load: StepKernel {
        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            CounterWorkload.checkMonotonic(state.value.pointee, state, &frame)
        }

        /// The same, reporting the value to a controlled trial's trace.
        func runWithFuzzPoints(_ state: State, _ frame: inout OpFrame) -> StepResult {
            let value = state.value.pointee
            frame.traceValue("read count", value)
            return CounterWorkload.checkMonotonic(value, state, &frame)
        }
    }

    /// `split-rmw`'s `load`: the value, kept in `r0` for the store.
    struct SplitLoad: StepKernel {
        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            frame.r0 = state.value.pointee
            return .next
        }

        /// The same, reporting the value to a controlled trial's trace.
        func runWithFuzzPoints(_ state: State, _ frame: inout OpFrame) -> StepResult {
            frame.r0 = state.value.pointee
            frame.traceValue("read count", frame.r0)
            return .next
        }
    }

    /// `split-rmw`'s `store`: the loaded value + 1, in another critical
    /// section than the load (the lost update), checked where it happens.
    struct SplitStore: StepKernel {
        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            let found = state.value.pointee
            state.value.pointee = frame.r0 + 1
            return CounterWorkload.checkNoLostUpdate(loaded: frame.r0, found: found)
        }

        /// The same, reporting the value to a controlled trial's trace.
        func runWithFuzzPoints(_ state: State, _ frame: inout OpFrame) -> StepResult {
            let found = state.value.pointee
            state.value.pointee = frame.r0 + 1
            frame.traceValue("write count =", frame.r0 + 1)
            return CounterWorkload.checkNoLostUpdate(loaded: frame.r0, found: found)
        }
    }

    /// A kernel inside the occupancy probe and the read spin, as
    /// `track_occupancy` and `read_spin` ask.
    struct Guarded<Inner: StepKernel>: StepKernel where Inner.State == State {
        let inner: Inner
        let writer: Bool
        let track: Bool
        let pauses: Int

        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            let found = track ? state.enter(writer: writer) : nil
            CounterWorkload.spin(pauses)
            let result = inner.run(state, &frame)
            if track { state.exit(writer: writer) }
            if let found { return .violation(found) }
            return result
        }

        /// The same around the inner kernel's body with its fuzz points.
        @inline(__always)
        func runWithFuzzPoints(_ state: State, _ frame: inout OpFrame) -> StepResult {
            let found = track ? state.enter(writer: writer) : nil
            CounterWorkload.spin(pauses)
            let result = inner.runWithFuzzPoints(state, &frame)
            if track { state.exit(writer: writer) }
            if let found { return .violation(found) }
            return result
        }
    }

    // The lock-free form. Relaxed ordering suffices for both invariants: they
    // concern one location, whose modification order every thread sees the
    // same way.

    /// `add`, lock-free: a wrapping add on the atomic.
    struct AtomicAdd: StepKernel {
        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            state.cell(.lockFreeValue).pointee.wrappingAdd(1, ordering: .relaxed)
            return .next
        }
    }

    /// `load` of a read, lock-free, with the read spin after it.
    struct AtomicLoad: StepKernel {
        let pauses: Int

        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            let seen = state.cell(.lockFreeValue).pointee.load(ordering: .relaxed)
            CounterWorkload.spin(pauses)
            return CounterWorkload.checkMonotonic(seen, state, &frame)
        }
    }

    /// `split-rmw`'s `load`, lock-free.
    struct AtomicSplitLoad: StepKernel {
        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            frame.r0 = state.cell(.lockFreeValue).pointee.load(ordering: .relaxed)
            return .next
        }
    }

    /// `split-rmw`'s `store`, lock-free: an exchange, not a compare-exchange,
    /// so the store still happens (the bug is kept, and the final count shows
    /// it), and what it replaced says whether it overwrote a write.
    struct AtomicSplitStore: StepKernel {
        @inline(__always)
        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            let found = state.cell(.lockFreeValue).pointee.exchange(frame.r0 + 1, ordering: .relaxed)
            return CounterWorkload.checkNoLostUpdate(loaded: frame.r0, found: found)
        }
    }
}

// None of the counter's kernels uses a register past r3 (the loop then skips
// a look per operation, see ``FourRegisterKernel``).
extension CounterWorkload.Add: FourRegisterKernel {}
extension CounterWorkload.Load: FourRegisterKernel {}
extension CounterWorkload.SplitLoad: FourRegisterKernel {}
extension CounterWorkload.SplitStore: FourRegisterKernel {}
extension CounterWorkload.Guarded: FourRegisterKernel where Inner: FourRegisterKernel {}
extension CounterWorkload.AtomicAdd: FourRegisterKernel {}
extension CounterWorkload.AtomicLoad: FourRegisterKernel {}
extension CounterWorkload.AtomicSplitLoad: FourRegisterKernel {}
extension CounterWorkload.AtomicSplitStore: FourRegisterKernel {}

// The increment takes the counter's address once per batch (see
// ``BatchBoundKernel``): the overhead benchmark's `nslock` loop
// lost two loads an operation with it.
extension CounterWorkload.Add: BatchBoundKernel {}
