/// The hooks of the loop compiled for an isolating strategy
/// (``_MeasuredTaskLoop``): the step's site words, read once for the loop,
/// and the wait timed from the operation's start when the operation is timed.
/// No fuzz points: fuzzing is off there.
struct MeasuredTaskStepHooks: StepHooks, Sendable {
    let probe: SiteProbe
    let waitingWord: SiteWord, insideWord: SiteWord
    /// Whether this operation is timed, and when it started (its first step's
    /// wait starts with it, as `askedAt(step: 0)`).
    let timed: Bool, start: UInt64

    @inline(__always)
    func waiting(_ frame: inout OpFrame) { probe.publish(waitingWord) }

    @inline(__always)
    func asking(_ frame: inout OpFrame, inner: Bool) -> UInt64 { start }

    @inline(__always)
    func enteredOuter(_ asked: UInt64, _ frame: inout OpFrame) {
        preconditionFailure("the measured task loop runs read and write steps only")
    }

    @inline(__always)
    func entered(_ asked: UInt64, _ frame: inout OpFrame) {
        if timed { frame.entered(asked) }
        probe.publish(insideWord)
    }

    @inline(__always)
    func leaving(_ frame: inout OpFrame, innermost: Bool) {}

    @inline(__always)
    func left(_ frame: inout OpFrame) {}
}
