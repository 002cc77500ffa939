import Foundation
import Synchronization

/// One run of a controlled trial in this process, for shrinking and
/// exploration, which run many: on a thread of its own, so that a run
/// whose workers deadlock (they stay parked for good, as stuck threads do)
/// is left behind while the search goes on.
final class ControlledExecution: Sendable {
    /// How one run ended.
    enum Outcome: Sendable {
        case passed(EngineOutput)
        case violated(EngineOutput)
        case stalled(StallReport)
        /// The engine refused or failed to run it.
        case failedToRun(String)
        /// It neither ended nor stalled within its limit.
        case abandoned

        /// The output of a run that ended.
        var output: EngineOutput? {
            switch self {
            case .passed(let o), .violated(let o): return o
            default: return nil
            }
        }

        var failed: Bool {
            switch self {
            case .violated, .stalled: return true
            default: return false
            }
        }
    }

    /// Runs one trial with the given settings (a registry entry's run).
    typealias Run = @Sendable (TrialSettings, @escaping @Sendable (StallReport) -> Void) throws -> EngineOutput

    let run: Run
    /// Runs left behind so far; past ``abandonLimit`` the search stops, as
    /// each keeps its parked threads.
    private let abandoned = Atomic<Int>(0)
    static let abandonLimit = 32
    /// The threads the runs reuse (each run's own, its workers', its
    /// monitor's): a search runs many short runs, and starting threads was
    /// the largest part of each.
    private let threads = ThreadPool()

    /// The instant (``MonotonicClock``) past which no run is waited for,
    /// whatever its own limit; `UInt64.max`: none. Why: a run stopped at a
    /// search's time bound lets its workers go on uncontrolled, and a run
    /// that then deadlocks in the kernel (as the job board's queue-lock-order
    /// bug does) can never end; waited for with the run limit, it kept the
    /// trial past its timeout, and the failure already found was lost.
    private let waitsUntil = Atomic<UInt64>(.max)

    init(run: @escaping Run) { self.run = run }

    /// Waits for no run past `deadline` (``MonotonicClock`` time), or, with
    /// nil, again for each run's own limit.
    func waitNoLater(than deadline: UInt64?) { waitsUntil.store(deadline ?? .max, ordering: .relaxed) }

    /// Whether too many runs were left behind to go on.
    var exhausted: Bool { abandoned.load(ordering: .relaxed) >= Self.abandonLimit }

    /// Runs one execution, waiting at most `limitNs` for it to end or stall.
    func callAsFunction(_ settings: TrialSettings, limitNs: UInt64) -> Outcome {
        let slot = OutcomeSlot()
        let run = self.run
        let thread = threads.spawn {
            do {
                let output = try run(settings) { report in slot.fill(.stalled(report)) }
                slot.fill(output.violations.count > 0 ? .violated(output) : .passed(output))
            } catch {
                slot.fill(.failedToRun("\(error)"))
            }
        }
        guard let thread else { return .failedToRun("could not start a thread for the run") }
        let until = waitsUntil.load(ordering: .relaxed)
        let now = MonotonicClock.now()
        let outcome = slot.wait(limitNs: until == .max ? limitNs : Swift.min(limitNs, until > now ? until - now : 0))
        switch outcome {
        case .passed, .violated, .failedToRun:
            thread.join()
        case .stalled, .abandoned:
            // Its workers are parked for good; so is the thread that waits
            // for them. Left behind.
            abandoned.add(1, ordering: .relaxed)
        }
        return outcome
    }
}

/// Where a run's thread leaves its outcome: the first one given wins (a
/// stall reported while the run's thread is still waiting for its workers).
private final class OutcomeSlot: Sendable {
    private let value = Mutex<ControlledExecution.Outcome?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func fill(_ outcome: ControlledExecution.Outcome) {
        let first = value.withLockSeen { v -> Bool in
            guard v == nil else { return false }
            v = outcome
            return true
        }
        if first { ready.signal() }
    }

    func wait(limitNs: UInt64) -> ControlledExecution.Outcome {
        // No limit (the trial's own timeout bounds it): wait for good.
        let deadline: DispatchTime = limitNs >= UInt64(Int32.max) * 1_000_000_000 ? .distantFuture : .now() + .nanoseconds(Int(limitNs))
        _ = ready.wait(timeout: deadline)
        return value.withLockSeen { v in
            if let v { return v }
            v = .abandoned
            return .abandoned
        }
    }
}
