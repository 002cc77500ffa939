/// `lifecycle`: the state machine of an asynchronous operation, modelled on a
/// run-loop `NSOperation` subclass: `inited → executing → finished`.
///
/// A pool of operation slots stands for the operations in flight. Workers pick a
/// slot at random and `start` it (once: a start on an operation that is no
/// longer `inited` is refused), `cancel` it (any number of times, from any
/// thread), `run` a unit of its work (the run-loop callback; after its last unit,
/// or as soon as it sees the cancellation, it finishes), or `recycle` it once
/// finished (check its history and reset it as a fresh operation of the slot's
/// next generation), so the workload keeps going for as long as the trial runs.
/// An operation cancelled before it starts finishes at `start`, without executing,
/// as `NSOperation` does. Finishing fires the completion callback.
///
/// Invariants, checked at every transition and when a slot is recycled:
/// - **state only moves forward** (`inited → executing → finished`);
/// - **start once**: an operation is started at most once;
/// - **finish exactly once**, and **completion fires once**;
/// - **cancellation error**: an operation cancelled before it finished ends with a
///   cancellation error, one that was not ends with success.
///
/// The pool is one resource (one lock, queue or actor guards every slot, as an
/// operation queue's own lock does).
///
/// Variant `actor-reentrancy`: `start` checks that the operation is `inited` in
/// one isolated region, awaits a call into another actor (a preparer, resource
/// 1), then marks the operation `executing` on the strength of the stale check.
/// While it is suspended the pool's actor runs other callers' work, so two starts
/// can both pass the check. The same split is a check-then-act race under every
/// other strategy (the lock is released around the call).
package struct LifecycleWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "lifecycle",
        summary: "NSOperation-style state machine (inited → executing → finished) over a pool of recycled operations",
        parameters: [
            .integer("slots", "operations in flight (slots workers pick from at random)", default: 16, range: 1...65_536),
            .number("cancel_ratio", "fraction of operations that cancel (the rest start, run and recycle)", default: 0.1, range: 0...1),
            .integer("max_work", "most run-loop callbacks an operation needs before it finishes", default: 3, range: 1...1_000),
            .choice("variant", "correct; or actor-reentrancy (start checks the state, awaits, then acts on the stale check)",
                    default: "correct", choices: Variant.allCases.map(\.rawValue)),
        ]
    )

    /// The bug a plan selects with `variant`.
    public enum Variant: String, CaseIterable, Sendable {
        case correct
        case actorReentrancy = "actor-reentrancy"
    }

    /// The states, in the only order they may be taken.
    enum Phase {
        static let inited = 0, executing = 1, finished = 2
        static func name(_ phase: Int) -> String {
            switch phase {
            case inited: return "inited"
            case executing: return "executing"
            case finished: return "finished"
            default: return "invalid(\(phase))"
            }
        }
    }

    /// How an operation finished.
    enum Outcome {
        static let none = 0, success = 1, cancellationError = 2
    }

    /// One operation slot: the current operation's state and its history.
    struct Slot {
        var phase: Int
        var cancelled: Int
        var starts: Int
        var finishes: Int
        var completions: Int
        var outcome: Int
        var workLeft: Int
        /// How many operations this slot ran before the current one.
        var generation: Int
    }

    /// The slots, each on its own cache line, and each worker's recycle count.
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test is what keeps this safe; under
        // `unsynchronized` the races are the point and the checks catch them.
        let slots: CacheLineArray<Slot>
        let count: Int
        /// Operations each worker recycled (written only by its own steps).
        let recycled: CacheLineArray<Int>
        let threads: Int
        /// The preparer's own state (resource 1, actor-reentrancy variant only).
        let prepared = CacheLineArray<Int>(count: 1)

        init(slots: Int, threads: Int) {
            count = slots
            // Zeroed memory is a fresh `inited` operation of generation 0.
            self.slots = CacheLineArray(count: slots)
            self.threads = threads
            recycled = CacheLineArray(count: threads)
        }

        deinit {
            slots.deallocate()
            recycled.deallocate()
            prepared.deallocate()
        }
    }

    let slotCount: Int
    let cancelRatio: Double
    let maxWork: Int
    let variant: Variant

    public init(parameters: WorkloadParameters) throws {
        slotCount = try parameters.integer("slots")
        cancelRatio = try parameters.number("cancel_ratio")
        maxWork = try parameters.integer("max_work")
        variant = Variant(rawValue: try parameters.text("variant")) ?? .correct
    }

    /// The pool; in the actor-reentrancy variant also the preparer it awaits.
    public var resourceCount: Int { variant == .actorReentrancy ? 2 : 1 }

    public func makeState(threads: Int) -> State { State(slots: slotCount, threads: threads) }

    public func operations() -> [StressOperation<State>] {
        let maxWork = self.maxWork
        // r0: the slot; r2: the work units a start gives the operation.
        let choose = Step<State>.unguarded("choose") { state, frame in
            frame.r0 = frame.random.next(below: state.count)
            frame.r2 = 1 + frame.random.next(below: maxWork)
            return .next
        }
        let rest = 1 - cancelRatio
        return [
            StressOperation("start", weight: 0.3 * rest, steps: [choose] + startSteps()),
            StressOperation("cancel", weight: cancelRatio, steps: [choose, .write("cancel") { state, frame in
                let slot = state.slots[frame.r0]
                guard slot.pointee.phase != Phase.finished else { return .finish }
                slot.pointee.cancelled = 1
                return .next
            }]),
            StressOperation("run", weight: 0.4 * rest, steps: [choose, .write("run") { state, frame in
                let slot = state.slots[frame.r0]
                guard slot.pointee.phase == Phase.executing else { return .finish }
                if slot.pointee.cancelled != 0 { return Self.finish(slot, index: frame.r0, Outcome.cancellationError) }
                slot.pointee.workLeft -= 1
                return slot.pointee.workLeft > 0 ? .next : Self.finish(slot, index: frame.r0, Outcome.success)
            }]),
            StressOperation("recycle", weight: 0.3 * rest, steps: [choose, .write("recycle") { state, frame in
                let slot = state.slots[frame.r0]
                guard slot.pointee.phase == Phase.finished else { return .finish }
                let broken = Self.history(slot.pointee, index: frame.r0)
                let generation = slot.pointee.generation
                slot.pointee = Slot(phase: Phase.inited, cancelled: 0, starts: 0, finishes: 0, completions: 0,
                                    outcome: Outcome.none, workLeft: 0, generation: generation &+ 1)
                state.recycled[frame.thread].pointee &+= 1
                return broken.map { .violation($0) } ?? .next
            }]),
        ]
    }

    private func startSteps() -> [Step<State>] {
        guard variant == .actorReentrancy else {
            return [.write("start") { state, frame in
                let slot = state.slots[frame.r0]
                guard slot.pointee.phase == Phase.inited else { return .finish }
                return Self.start(slot, index: frame.r0, workUnits: frame.r2)
            }]
        }
        return [
            .read("check") { state, frame in
                state.slots[frame.r0].pointee.phase == Phase.inited ? .next : .finish
            },
            // The await: a call into another actor (resource 1, a preparer that
            // counts preparations). The pool's actor runs other callers' work
            // meanwhile, another start included.
            .write("await-prepare", resource: 1) { state, _ in
                state.prepared[0].pointee &+= 1
                return .next
            },
            .write("act") { state, frame in
                Self.start(state.slots[frame.r0], index: frame.r0, workUnits: frame.r2)
            },
        ]
    }

    /// Starts the operation in `slot`, checking it was `inited` and had not been
    /// started (which the correct variant made sure of in the same critical section).
    private static func start(_ slot: UnsafeMutablePointer<Slot>, index: Int, workUnits: Int) -> StepResult {
        let was = slot.pointee.phase
        let generation = slot.pointee.generation
        slot.pointee.starts &+= 1
        let result: StepResult
        if slot.pointee.cancelled != 0 {
            // Cancelled before it started: it finishes at once, without executing.
            result = finish(slot, index: index, Outcome.cancellationError)
        } else {
            slot.pointee.phase = Phase.executing
            slot.pointee.workLeft = workUnits
            result = .next
        }
        if was != Phase.inited {
            let rule = was == Phase.executing ? "start once: started a second time" : "state only moves forward: started again"
            return .violation("\(rule) while \(Phase.name(was)) (slot \(index), generation \(generation))")
        }
        return result
    }

    /// Moves the operation to `finished` with `outcome` and fires its completion
    /// callback, checking each happens once.
    private static func finish(_ slot: UnsafeMutablePointer<Slot>, index: Int, _ outcome: Int) -> StepResult {
        let was = slot.pointee.phase
        let where_ = "(slot \(index), generation \(slot.pointee.generation))"
        slot.pointee.phase = Phase.finished
        slot.pointee.finishes &+= 1
        slot.pointee.outcome = outcome
        slot.pointee.completions &+= 1
        if was == Phase.finished { return .violation("finish exactly once: finished again \(where_)") }
        if slot.pointee.completions > 1 { return .violation("completion fires once: fired \(slot.pointee.completions) times \(where_)") }
        if (slot.pointee.cancelled != 0) != (outcome == Outcome.cancellationError) {
            return .violation("cancellation error: finished with outcome \(outcome) but cancelled is \(slot.pointee.cancelled) \(where_)")
        }
        return .next
    }

    /// The broken invariant, if any, in the history of a finished operation.
    private static func history(_ slot: Slot, index: Int) -> String? {
        let where_ = "(slot \(index), generation \(slot.generation))"
        if slot.starts != 1 { return "start once: the operation was started \(slot.starts) times \(where_)" }
        if slot.finishes != 1 { return "finish exactly once: the operation finished \(slot.finishes) times \(where_)" }
        if slot.completions != 1 { return "completion fires once: the completion fired \(slot.completions) times \(where_)" }
        let expected = slot.cancelled != 0 ? Outcome.cancellationError : Outcome.success
        if slot.outcome != expected {
            return slot.cancelled != 0
                ? "cancellation error: a cancelled operation finished without a cancellation error \(where_)"
                : "cancellation error: an operation that was not cancelled finished with a cancellation error \(where_)"
        }
        return nil
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        var broken: [String] = []
        var generations = 0
        for i in 0..<state.count {
            let slot = state.slots[i].pointee
            generations &+= slot.generation
            let problem: String?
            switch slot.phase {
            case Phase.inited:
                problem = slot.starts == 0 && slot.finishes == 0 && slot.completions == 0 ? nil
                    : "state only moves forward: an inited operation has \(slot.starts) starts and \(slot.finishes) finishes"
            case Phase.executing:
                problem = slot.starts == 1 && slot.finishes == 0 ? nil
                    : "state only moves forward: an executing operation has \(slot.starts) starts and \(slot.finishes) finishes"
            case Phase.finished:
                problem = Self.history(slot, index: i)
            default:
                problem = "state only moves forward: slot \(i) is in no valid state (\(slot.phase))"
            }
            if let problem, broken.count < 5 { broken.append(problem + " (after the run)") }
        }
        var recycled = 0
        for t in 0..<state.threads { recycled &+= state.recycled[t].pointee }
        if recycled != generations {
            broken.append("finish exactly once: \(recycled) operations were recycled but the slots count \(generations) generations")
        }
        return broken
    }

    public func metrics(_ state: State) -> [String: Double] {
        var generations = 0
        for i in 0..<state.count { generations &+= state.slots[i].pointee.generation }
        return ["operations_completed": Double(generations)]
    }
}
