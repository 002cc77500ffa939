/// The hooks of the untimed kernel batch: none. The batch publishes the
/// step's word once before it and books once after it, so an operation there
/// is the lock and the kernel's body.
struct KernelStepHooks: StepHooks {
    @inline(__always)
    func waiting(_ frame: inout OpFrame) {}

    @inline(__always)
    func asking(_ frame: inout OpFrame, inner: Bool) -> UInt64 { 0 }

    @inline(__always)
    func enteredOuter(_ asked: UInt64, _ frame: inout OpFrame) {}

    @inline(__always)
    func entered(_ asked: UInt64, _ frame: inout OpFrame) {}

    @inline(__always)
    func leaving(_ frame: inout OpFrame, innermost: Bool) {}

    @inline(__always)
    func left(_ frame: inout OpFrame) {}
}
