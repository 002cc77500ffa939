/// The sequence of one step under a blocking strategy, written once: publish
/// the step waiting, ask for its access, publish it inside, run the body,
/// release. Every thread loop of the engine runs its steps through it, each
/// with its own ``StepHooks``: the general loop (fuzzing, timing, the signals
/// of `waitUntil`), the loop compiled for the strategy, and the kernel loops,
/// untimed and timed. Always inlined, so each caller is a specialization of
/// this one sequence for its hooks, its strategy's type and its step's access
/// (a caller that switches on the access first passes a constant one, and the
/// switch here folds away).
enum StepPath {
    /// Runs one step: an unguarded one, or a read, a write or a nested write.
    /// `body` runs the step's body on the frame: its closure, or a kernel
    /// inlined.
    @inline(__always)
    static func run<S: BlockingStrategy, H: StepHooks>(
        _ access: StepAccess, _ strategy: S, _ hooks: inout H, frame: inout OpFrame, body: (inout OpFrame) -> StepResult
    ) -> StepResult {
        hooks.waiting(&frame)
        switch access {
        case .unguarded:
            return body(&frame)
        case .read(let r):
            let asked = hooks.asking(&frame, inner: false)
            var result = StepResult.next
            strategy.read(r) {
                hooks.entered(asked, &frame)
                result = body(&frame)
                hooks.leaving(&frame, innermost: true)
            }
            hooks.left(&frame)
            return result
        case .write(let r):
            let asked = hooks.asking(&frame, inner: false)
            var result = StepResult.next
            strategy.write(r) {
                hooks.entered(asked, &frame)
                result = body(&frame)
                hooks.leaving(&frame, innermost: true)
            }
            hooks.left(&frame)
            return result
        case .nestedWrite(let outer, let inner):
            // A write inside a write, exactly as real code nests them.
            let asked = hooks.asking(&frame, inner: false)
            var result = StepResult.next
            strategy.write(outer) {
                hooks.enteredOuter(asked, &frame)
                let askedInner = hooks.asking(&frame, inner: true)
                strategy.write(inner) {
                    hooks.entered(askedInner, &frame)
                    result = body(&frame)
                    hooks.leaving(&frame, innermost: true)
                }
                hooks.leaving(&frame, innermost: false)
            }
            hooks.left(&frame)
            return result
        case .nestedWrites, .hold, .release, .waitUntil, .awaiting:
            // The general loop hands these to ExtendedSteps, or to tasks.
            preconditionFailure("extended and async steps take the general loop's own paths")
        }
    }
}
