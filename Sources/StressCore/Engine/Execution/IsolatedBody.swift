/// A step's body borrowed for the isolated region of the measured task loop
/// (``_MeasuredTaskLoop``). @unchecked: the box is immutable and outlives the
/// loop, which holds it; borrowing it costs no reference counting per call.
struct IsolatedBody: @unchecked Sendable {
    let box: Unmanaged<CompiledProgram.BodyBox>

    init(_ box: Unmanaged<CompiledProgram.BodyBox>) { self.box = box }

    /// Runs the body on `frame`.
    @inline(__always)
    func call(_ state: ErasedState, _ frame: inout OpFrame) -> StepResult {
        box._withUnsafeGuaranteedRef { $0.body(state, &frame) }
    }
}
