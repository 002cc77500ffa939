import CStressSupport

/// The hooks of the timed kernel batch: the CPU's counter read once, when the
/// step's (innermost) section is entered. The batch reads it at the start and
/// the end of each operation itself, so the wait is from the start to this
/// reading: for a nested write, the outer lock's wait and the inner one's
/// together, as the general loop counts it, with one counter read fewer.
struct TimedKernelStepHooks: StepHooks {
    /// The counter when the section was entered; 0 for an unguarded step.
    var acquired: UInt64 = 0

    @inline(__always)
    func waiting(_ frame: inout OpFrame) {}

    @inline(__always)
    func asking(_ frame: inout OpFrame, inner: Bool) -> UInt64 { 0 }

    @inline(__always)
    func enteredOuter(_ asked: UInt64, _ frame: inout OpFrame) {}

    @inline(__always)
    mutating func entered(_ asked: UInt64, _ frame: inout OpFrame) { acquired = stress_ticks() }

    @inline(__always)
    func leaving(_ frame: inout OpFrame, innermost: Bool) {}

    @inline(__always)
    func left(_ frame: inout OpFrame) {}
}
