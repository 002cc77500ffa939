/// A check of the code under test that fails the execution where it stands,
/// as C's `assert` ends a program (``reportFailedCheck(_:file:line:)``).
extension ControlledScheduler {
    /// Check `file:line` failed on `me`, the token's holder: the trace ends
    /// with it (later events are not noted) and the trial stops, so this
    /// round is the trial's last. The remaining roles finish the round under
    /// control, which keeps the decisions, and so a replay, the same.
    func checkFailed(_ me: Int, file: StaticString, line: UInt) {
        lockState()
        defer { unlockState() }
        guard !isReleased, token.pointee.load(ordering: .relaxed) == me else { return }
        trace.append(me, .check, .label("check failed"), at: TraceRing.Location(file: file, line: UInt32(truncatingIfNeeded: line)))
        trace.seal()
        control?.enter(TrialControl.stop)
    }
}
