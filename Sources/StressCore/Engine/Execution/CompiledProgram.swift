/// A workload's state as the blocking hot loop passes it: its type erased, so
/// that the loop need not be generic over it (see ``_MeasuredLoop``).
typealias ErasedState = any AnyObject & Sendable

/// A step body that takes an erased state.
typealias ErasedStepBody = @Sendable (ErasedState, inout OpFrame) -> StepResult

/// A `waitUntil` step's predicate that takes an erased state.
typealias ErasedPredicate = @Sendable (ErasedState, inout OpFrame) -> Bool

/// A worker's operations flattened for the blocking hot loop, in raw memory the
/// worker owns: each step's access and body (no names: copying a `Step` would
/// retain its strings) and the site words it publishes, worked out once here so
/// that publishing in the loop is a single store of a constant. Each body sits
/// in an object of its own, called without a reference count
/// (``call(_:_:_:)``): calling a closure loaded from raw memory would otherwise
/// retain and release its context around every call.
///
/// Not generic: the bodies take an ``ErasedState``, so the loop that runs them
/// can be compiled once per strategy type (``_MeasuredLoop``) and not once per
/// pair of strategy and workload, which Swift would not do.
struct CompiledProgram {
    struct CompiledStep {
        let access: StepAccess
        /// The body, in ``CompiledProgram/bodies``, at the same index as the step.
        let body: Unmanaged<BodyBox>
        /// The step's site id (its index in the board's labels).
        let site: Int
        /// Published before the step asks for its section (`acquiring`), or as
        /// it starts when it needs none (`running`).
        let waiting: SiteWord
        /// Published once inside (the inner section, for a nested write).
        let inside: SiteWord
        /// Nested writes: published holding the outer section, asking for
        /// the inner. A `waitUntil` step: published while it waits for a signal.
        let waitingInner: SiteWord
        /// A `waitUntil` step's predicate.
        let predicate: CompiledPredicate?

        init(access: StepAccess, body: @escaping ErasedStepBody, site: Int, waiting: SiteWord, inside: SiteWord, waitingInner: SiteWord,
             predicate: ErasedPredicate? = nil) {
            self.access = access
            self.body = .passRetained(BodyBox(body))
            self.site = site
            self.waiting = waiting
            self.inside = inside
            self.waitingInner = waitingInner
            self.predicate = predicate.map { CompiledPredicate(box: .passRetained(PredicateBox($0))) }
        }

        /// Calls the body, borrowed: no reference count changes, as the
        /// program keeps every body alive until ``CompiledProgram/deallocate()``.
        @inline(__always)
        func call(_ state: ErasedState, _ frame: inout OpFrame) -> StepResult {
            body._withUnsafeGuaranteedRef { $0.body(state, &frame) }
        }
    }

    /// A step body in an object of its own (see ``CompiledStep/call(_:_:)``).
    final class BodyBox {
        let body: ErasedStepBody
        init(_ body: @escaping ErasedStepBody) { self.body = body }
    }

    /// A `waitUntil` step's predicate in an object of its own, called as the
    /// body is (no reference counting per call).
    final class PredicateBox {
        let predicate: ErasedPredicate
        init(_ predicate: @escaping ErasedPredicate) { self.predicate = predicate }
    }

    /// A predicate, borrowed from the program that keeps it alive.
    struct CompiledPredicate {
        let box: Unmanaged<PredicateBox>

        @inline(__always)
        func call(_ state: ErasedState, _ frame: inout OpFrame) -> Bool {
            box._withUnsafeGuaranteedRef { $0.predicate(state, &frame) }
        }
    }

    /// One operation: where its steps are and what to publish after it.
    struct CompiledOperation {
        /// Its first step, in ``CompiledProgram/steps``.
        let steps: UnsafeMutablePointer<CompiledStep>
        let stepCount: Int
        /// The site id of its step 0.
        let siteBase: Int
        /// The word published after it.
        let between: SiteWord
    }

    /// The steps of every operation, one after another.
    let steps: UnsafeMutableBufferPointer<CompiledStep>
    /// The operations, by index.
    let operations: UnsafeMutableBufferPointer<CompiledOperation>
    /// Each step's ``Step/kernel``, at the step's index in ``steps`` (kept
    /// apart so that a ``CompiledStep`` stays plain data, copied with no
    /// reference counting).
    let kernels: [(any StepKernel)?]

    /// Flattens `operations`, whose step `k` of operation `i` has site id
    /// `siteBase[i] + k` (the board's numbering). Free it with ``deallocate()``.
    init<State>(_ operations: [StressOperation<State>], siteBase: [Int]) {
        let total = operations.reduce(0) { $0 + $1.steps.count }
        steps = .allocate(capacity: total)
        kernels = operations.flatMap { $0.steps.map(\.kernel) }
        self.operations = .allocate(capacity: operations.count)
        var next = 0
        for (i, op) in operations.enumerated() {
            self.operations.initializeElement(at: i, to: CompiledOperation(
                steps: steps.baseAddress! + next, stepCount: op.steps.count, siteBase: siteBase[i],
                between: SiteWord(site: siteBase[i], phase: .betweenOperations)))
            for (k, step) in op.steps.enumerated() {
                let site = siteBase[i] + k
                let body = Self.erase(step.body)
                let compiled: CompiledStep
                switch step.access {
                case .unguarded, .awaiting:
                    // An async step never runs on a thread worker (the engine
                    // runs such programs on tasks); it compiles as unguarded.
                    let running = SiteWord(site: site, phase: .running)
                    compiled = CompiledStep(access: step.access, body: body, site: site,
                                            waiting: running, inside: running, waitingInner: running)
                case .read(let r):
                    compiled = CompiledStep(access: step.access, body: body, site: site,
                                            waiting: SiteWord(site: site, phase: .acquiring, resource: r),
                                            inside: SiteWord(site: site, phase: .inside, resource: r),
                                            waitingInner: SiteWord(site: site, phase: .acquiring, resource: r))
                case .write(let r):
                    compiled = CompiledStep(access: step.access, body: body, site: site,
                                            waiting: SiteWord(site: site, phase: .acquiring, resource: r, write: true),
                                            inside: SiteWord(site: site, phase: .inside, resource: r, write: true),
                                            waitingInner: SiteWord(site: site, phase: .acquiring, resource: r, write: true))
                case .nestedWrite(let outer, let inner):
                    compiled = CompiledStep(
                        access: step.access, body: body, site: site,
                        waiting: SiteWord(site: site, phase: .acquiring, resource: outer, write: true),
                        inside: SiteWord(site: site, phase: .insideInner, resource: outer, inner: inner, write: true),
                        waitingInner: SiteWord(site: site, phase: .acquiringInner, resource: outer, inner: inner, write: true))
                case .nestedWrites(let path):
                    // The inner levels' words are made as the step goes down.
                    let first = SiteWord(site: site, phase: .acquiring, resource: path[0], write: true)
                    compiled = CompiledStep(access: step.access, body: body, site: site, waiting: first, inside: first, waitingInner: first)
                case .hold(let r), .release(let r):
                    let inside = SiteWord(site: site, phase: .inside, resource: r, write: true)
                    compiled = CompiledStep(access: step.access, body: body, site: site,
                                            waiting: SiteWord(site: site, phase: .acquiring, resource: r, write: true),
                                            inside: inside, waitingInner: inside)
                case .waitUntil(let r, _):
                    // While it waits for a signal it holds nothing: running,
                    // with the line's wait words saying what for.
                    compiled = CompiledStep(access: step.access, body: body, site: site,
                                            waiting: SiteWord(site: site, phase: .acquiring, resource: r, write: true),
                                            inside: SiteWord(site: site, phase: .inside, resource: r, write: true),
                                            waitingInner: SiteWord(site: site, phase: .running),
                                            predicate: step.predicate.map { Self.erase(predicate: $0) })
                }
                steps.initializeElement(at: next, to: compiled)
                next += 1
            }
        }
    }

    /// A body with its state's type erased. The two function types differ only
    /// in the type of the first parameter, a class reference in both (a
    /// class-bound generic parameter and a class existential with no witness
    /// table are each passed as one borrowed pointer), so the value is the same
    /// function; the engine only ever calls it with the state it was made for.
    /// The cast is of a struct holding the function, not of the function: a
    /// function value handed to a generic parameter (as `unsafeBitCast`'s is)
    /// would be wrapped in two conversion thunks, costing two calls per step.
    /// Without the erasure the loop would be generic over the state, and Swift
    /// does not specialize a function over one generic parameter (the strategy)
    /// while another stays generic.
    static func erase<State: AnyObject & Sendable>(
        _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) -> ErasedStepBody {
        unsafeBitCast(TypedBody(body: body), to: ErasedBody.self).body
    }

    /// A predicate with its state's type erased, as ``erase(_:)`` does a body.
    private static func erase<State: AnyObject & Sendable>(
        predicate: @escaping @Sendable (State, inout OpFrame) -> Bool
    ) -> ErasedPredicate {
        unsafeBitCast(TypedPredicate(predicate: predicate), to: ErasedPredicateHolder.self).predicate
    }

    private struct TypedPredicate<State: AnyObject & Sendable> {
        let predicate: @Sendable (State, inout OpFrame) -> Bool
    }

    private struct ErasedPredicateHolder {
        let predicate: ErasedPredicate
    }

    /// A step body in a struct, so that casting the struct copies the function
    /// as it is stored (see ``erase(_:)``).
    private struct TypedBody<State: AnyObject & Sendable> {
        let body: @Sendable (State, inout OpFrame) -> StepResult
    }

    /// ``TypedBody`` with the state's type erased: the same layout.
    private struct ErasedBody {
        let body: ErasedStepBody
    }

    /// Whether any step is one the general loop alone runs (``StepAccess/isExtended``).
    var hasExtendedSteps: Bool { steps.contains { $0.access.isExtended } }

    /// The kernel of operation `i`, when it is one step made from a kernel.
    func soleKernel(ofOperation i: Int) -> (any StepKernel)? {
        guard operations[i].stepCount == 1 else { return nil }
        return kernels[operations[i].steps - steps.baseAddress!]
    }

    /// Frees the program (the worker's last use of it).
    func deallocate() {
        for step in steps {
            step.body.release()
            step.predicate?.box.release()
        }
        steps.deinitialize()
        steps.deallocate()
        operations.deallocate()
    }
}
