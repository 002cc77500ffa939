/// The hooks of the general thread loop (``execute(_:_:state:access:frame:)``):
/// the step's site words, the wait timed when the operation is, a fuzz point
/// before each acquire, after it, before each release and after the last, and
/// for a trial with `waitUntil` steps the signals a write's end gives them.
struct GeneralStepHooks: StepHooks {
    let step: UnsafeMutablePointer<CompiledProgram.CompiledStep>
    /// The step's index in its operation (see ``DirectStepHooks/index``).
    let index: Int
    /// The trial's access, for its signals; nil when nothing waits on them.
    /// unowned(unsafe): the hooks live for one step, while the caller holds
    /// the access; a strong reference would cost a retain and a release per
    /// step.
    unowned(unsafe) let signalling: BlockingAccess?
    /// The resources a write signals: the one it writes, or a nested write's
    /// outer and inner (a plain write's twice).
    let outer: Int, inner: Int
    /// Under controlled scheduling, the model of the strategy's sections.
    let shadow: SectionShadow?

    /// The hooks of `step`; `signalling` when the trial has `waitUntil` steps
    /// (a write's end, and a nested write's, is then a signal to them).
    @inline(__always)
    init(_ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, index: Int, access: BlockingAccess) {
        self.step = step
        self.index = index
        shadow = access.shadow
        switch step.pointee.access {
        case .write(let r) where access.waits:
            (signalling, outer, inner) = (access, r, r)
        case .nestedWrite(let o, let i) where access.waits:
            (signalling, outer, inner) = (access, o, i)
        default:
            (signalling, outer, inner) = (nil, 0, 0)
        }
    }

    @inline(__always)
    func waiting(_ frame: inout OpFrame) { frame.probe.publish(step.pointee.waiting) }

    @inline(__always)
    func asking(_ frame: inout OpFrame, inner: Bool) -> UInt64 {
        frame.fuzz(.beforeAcquire)
        if let shadow { enterShadow(shadow, inner: inner, &frame) }
        return inner ? frame.askedAt() : frame.askedAt(step: index)
    }

    @inline(__always)
    func enteredOuter(_ asked: UInt64, _ frame: inout OpFrame) {
        frame.entered(asked)
        frame.probe.publish(step.pointee.waitingInner)
        frame.fuzz(.afterAcquire)
    }

    @inline(__always)
    func entered(_ asked: UInt64, _ frame: inout OpFrame) {
        frame.entered(asked)
        frame.probe.publish(step.pointee.inside)
        frame.fuzz(.afterAcquire)
    }

    @inline(__always)
    func leaving(_ frame: inout OpFrame, innermost: Bool) {
        // A nested write's inner section was released just before.
        if !innermost, let shadow, case .nestedWrite(_, let i) = step.pointee.access { shadow.leave(i, worker: frame.thread) }
        frame.fuzz(.beforeRelease)
        // The end of the body is a signal to `waitUntil` steps: the inner
        // resource's, then the outer one's.
        if innermost, let signalling {
            signalling.signalInside(inner)
            if inner != outer { signalling.signalInside(outer) }
        }
    }

    @inline(__always)
    func left(_ frame: inout OpFrame) {
        if let shadow { leaveShadow(shadow, &frame) }
        if let signalling {
            signalling.signalAfter(outer)
            if inner != outer { signalling.signalAfter(inner) }
        }
        frame.fuzz(.afterRelease)
    }

    /// Asks the model for the section about to be asked for: the step's
    /// resource, or a nested write's outer or inner one.
    private func enterShadow(_ shadow: SectionShadow, inner: Bool, _ frame: inout OpFrame) {
        switch step.pointee.access {
        case .read(let r): shadow.enter(r, write: false, worker: frame.thread)
        case .write(let r): shadow.enter(r, write: true, worker: frame.thread)
        case .nestedWrite(let o, let i): shadow.enter(inner ? i : o, write: true, worker: frame.thread)
        default: break
        }
    }

    /// Gives the model back the step's section (a nested write's outer one)
    /// once the strategy has released it.
    private func leaveShadow(_ shadow: SectionShadow, _ frame: inout OpFrame) {
        switch step.pointee.access {
        case .read(let r), .write(let r), .nestedWrite(let r, _): shadow.leave(r, worker: frame.thread)
        default: break
        }
    }
}
