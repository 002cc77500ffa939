/// A step's body as a value of a type of its own, which the engine can compile
/// into its measured loop.
///
/// A step made from a closure (``Step/write(_:resource:_:)``) is called through
/// a function value: one indirect call per operation, and around it the loop
/// must keep its values in memory and load them again. For a step of a few
/// nanoseconds under a lock of a few more (the `counter` under `mutex`), that
/// call and its reloads are about as much as the lock itself. A step made from
/// a kernel (``Step/write(_:resource:kernel:)``) runs the same code, but where
/// the engine knows both the kernel's type and the strategy's, it runs a copy
/// of its loop compiled for that pair, with ``run(_:_:)`` and the lock inlined:
/// the loop is then the lock, the body, and a count.
///
/// When that loop is used: a worker whose only operation is one kernel step,
/// under a blocking strategy, without fuzzing, deferred writes or sections, in
/// a closed loop (the case where the harness's own cost shows most). The
/// strategies with a copy compiled for every kernel are the built-in ones
/// (``StressRegistry/builtIn``); a kernel runs under any other blocking
/// strategy in a loop with the strategy's calls not inlined, and everywhere
/// else exactly as a closure step would. What a kernel step publishes for the
/// watchdog differs in that loop only: its site word once per batch of
/// operations, not per operation (a worker stuck there is reported at the
/// step, acquiring, whether it waits for the section or is inside it), and its
/// progress once per batch.
///
/// A kernel is a small value: its stored properties are the step's
/// parameters (a spin count, say), read inside ``run(_:_:)`` as a closure's
/// captures would be.
///
/// ```swift
/// struct Add: StepKernel {
///     func run(_ state: Counter, _ frame: inout OpFrame) -> StepResult {
///         state.value.pointee += 1
///         return .next
///     }
/// }
/// StressOperation("increment", weight: 1, steps: [.write("add", kernel: Add())])
/// ```
public protocol StepKernel: Sendable {
    /// The workload's state type.
    associatedtype State: AnyObject & Sendable

    /// The step's body: what a closure step's body would do.
    ///
    /// - Parameters:
    ///   - state: The trial's shared state.
    ///   - frame: The worker's frame: registers, random stream, tally.
    /// - Returns: What the worker does next.
    func run(_ state: State, _ frame: inout OpFrame) -> StepResult

    /// The same body with fuzz points inside its racy windows (between a
    /// read and the write that depends on it), for the engine's general
    /// loop: where the trial fuzzes, and where controlled scheduling can
    /// switch workers only at points. The loops compiled for speed, which
    /// run only when nothing fuzzes, call ``run(_:_:)``, so a point costs
    /// them nothing. Implement it only for a kernel whose race lies inside
    /// its body; the default is ``run(_:_:)``.
    ///
    /// - Parameters:
    ///   - state: The trial's shared state.
    ///   - frame: The worker's frame: registers, random stream, tally.
    /// - Returns: What the worker does next.
    func runWithFuzzPoints(_ state: State, _ frame: inout OpFrame) -> StepResult

    /// Runs the engine's measured loop with this kernel's type known. The
    /// engine calls it; a kernel does not implement it (the default is the
    /// only sensible one).
    func _runMeasuredLoop(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy)
}

extension StepKernel {
    /// ``run(_:_:)``: a kernel with no racy window inside its body needs nothing else.
    ///
    /// - Parameters:
    ///   - state: The trial's shared state.
    ///   - frame: The worker's frame.
    /// - Returns: What ``run(_:_:)`` returns.
    @inline(__always)
    public func runWithFuzzPoints(_ state: State, _ frame: inout OpFrame) -> StepResult { run(state, &frame) }

    /// Runs the loop compiled for this kernel and the strategy's type, when the
    /// strategy is a built-in one (those ``StressRegistry/builtIn`` registers;
    /// the compiler sees them listed in the type of their registration).
    public func _runMeasuredLoop(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy) {
        StressRegistry.runKernelLoop(loop, strategy, kernel: self)
    }
}

/// A kernel that never writes the frame's registers past ``OpFrame/r3``
/// (``OpFrame/subscript(register:)`` 4 and up), so the kernel loop need not
/// look before each operation whether they must be zeroed: it zeroes them
/// once, before its batch.
///
/// Why a marker and not the compiler: the loop's frame is the worker's, which
/// a pointer reaches, so around the lock's calls the compiler cannot know the
/// flag did not change and loads it (and the frame's address, spilled) on
/// every operation. Those two loads were the only instructions the `counter`
/// loop had beyond the hand loop's, and with them its speed against the hand
/// loop moved from 0.90 to 0.99 with where the linker placed the loop.
package protocol FourRegisterKernel: StepKernel {}

/// A kernel whose body needs of the state only a value it can take once
/// before a batch of operations (the address of the cell it changes): the
/// kernel loop takes it with ``bind(_:)`` and runs ``run(bound:_:)`` on it.
///
/// Why: a lock whose calls are a class's methods (`NSLock`) may, for all the
/// compiler knows, change any memory, so after each call it loads the state
/// again and the cell's address from the state: two loads after every lock,
/// each waiting on the one before it and on the lock's atomic instruction,
/// where an application's loop, holding the address in a local, has none.
/// A value taken before the loop is such a local.
///
/// The value is an untyped address, not an associated type: the loop reaches
/// the kernel through a cast (`as? any BatchBoundKernel`), and a value of an
/// associated type opened from that cast lived in a stack slot of unknown
/// size, which the `mutex` loop read through two loads after every lock. An
/// address is one word: `nslock`'s loop keeps it in a register, `mutex`'s
/// (short of registers) in one stack slot.
package protocol BatchBoundKernel: StepKernel {
    /// Takes the address the body works on from `state`, once before a
    /// batch; it must stay valid for the trial.
    func bind(_ state: State) -> UnsafeMutableRawPointer

    /// The body, the same as ``StepKernel/run(_:_:)``, on the bound address.
    func run(bound: UnsafeMutableRawPointer, _ frame: inout OpFrame) -> StepResult
}
