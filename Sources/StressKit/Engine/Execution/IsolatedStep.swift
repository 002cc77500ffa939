/// What the isolated region needs of the loop: the worker's frame, at the
/// fixed address the loop's worker has, and the step's body, borrowed.
/// @unchecked: the worker's task is suspended in the `await` while the
/// isolated code uses the frame, so exactly one of them touches it at a time,
/// and the `await` orders the two (as ``FrameSlot``); the body is immutable.
struct IsolatedStep: @unchecked Sendable {
    let frame: UnsafeMutablePointer<OpFrame>
    let body: Unmanaged<CompiledProgram.BodyBox>

    /// The step's body in the isolated region, as the general path's
    /// `isolated(_:_:_:)` runs it (its fuzz points do nothing: fuzzing is off).
    @inline(__always)
    func run(_ state: ErasedState) -> StepResult {
        frame.pointee.insideActor = true
        let result = body._withUnsafeGuaranteedRef { $0.body(state, &frame.pointee) }
        frame.pointee.insideActor = false
        return result
    }
}
