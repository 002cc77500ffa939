/// The hooks of the loop compiled for the strategy (``_MeasuredLoop``): the
/// step's site words published, the wait timed when the operation is, no fuzz
/// points (fuzzing is off there) and no signals (no `waitUntil` steps).
struct DirectStepHooks: StepHooks {
    /// The step's site words: waiting for its access, inside it, and inside a
    /// nested write's outer section waiting for the inner one.
    let waitingWord: SiteWord, insideWord: SiteWord, waitingInnerWord: SiteWord
    /// The step's index in its operation: the first step's wait is timed from
    /// the operation's start (``OpFrame/askedAt(step:)``).
    let index: Int
    /// The frame's probe, in a local: the frame is handed to the body, so a
    /// probe read from it would be read again after every call.
    let probe: SiteProbe
    let timed: Bool

    @inline(__always)
    init(_ step: CompiledProgram.CompiledStep, index: Int, probe: SiteProbe, timed: Bool) {
        (waitingWord, insideWord, waitingInnerWord) = (step.waiting, step.inside, step.waitingInner)
        (self.index, self.probe, self.timed) = (index, probe, timed)
    }

    @inline(__always)
    func waiting(_ frame: inout OpFrame) { probe.publish(waitingWord) }

    @inline(__always)
    func asking(_ frame: inout OpFrame, inner: Bool) -> UInt64 {
        guard timed else { return 0 }
        return inner ? frame.askedAt() : frame.askedAt(step: index)
    }

    @inline(__always)
    func enteredOuter(_ asked: UInt64, _ frame: inout OpFrame) {
        if timed { frame.entered(asked) }
        probe.publish(waitingInnerWord)
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
