#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// What a worker is doing at a point in time, as it publishes it.
package enum WorkerPhase: UInt64, Sendable, CaseIterable {
    /// Not yet in its loop.
    case starting = 0
    /// Inside an operation, outside any critical section.
    case running = 1
    /// Waiting to enter a critical section (acquire a lock, enter a queue, reach an actor).
    case acquiring = 2
    /// Inside a critical section.
    case inside = 3
    /// Holding `resource`, waiting to enter `inner` (a nested access).
    case acquiringInner = 5
    /// Holding `resource` and inside `inner`.
    case insideInner = 6
    /// Between operations (loop bookkeeping).
    case betweenOperations = 7
    /// Waiting at a start barrier for the other workers.
    case atBarrier = 8
    /// Left its loop.
    case finished = 9
    /// Paced load: ahead of its schedule, waiting for its next intended start
    /// (idle by design, not stuck).
    case pacing = 10
    /// Held by the fuzzer (a sleep, a spin, a PCT wait): the harness's own
    /// pause, bounded, which the worker comes out of by itself.
    case fuzzing = 11
    /// A participant that is not a worker (the main thread, a helper thread)
    /// with nothing of the code under test to run: not part of any stall.
    case idle = 12
    /// Waiting for a primitive of the code under test that publishes what it
    /// waits for (a harness-aware lock, queue, semaphore or condition): the
    /// line's wait words say which.
    case blocked = 13
    /// In an `async` step (``StepAccess/awaiting``): suspended in an `await`
    /// of the code under test, or running one of the step's jobs; under the
    /// harness executor the watchdog asks it which (`JobScheduler.activity(of:)`).
    case awaiting = 14

    /// Whether a worker in this phase is blocked on another party, rather than running.
    var isWaiting: Bool {
        self == .acquiring || self == .acquiringInner || self == .atBarrier || self == .blocked || self == .awaiting
    }

    /// Whether the worker is in the harness's own code and will move on by
    /// itself (starting, between operations, waiting for its paced start, in a
    /// fuzz pause): a worker there is never part of a stall of the code under
    /// test; if it does not move, the OS has not run it.
    var isHarnessBusy: Bool { self == .starting || self == .betweenOperations || self == .pacing || self == .fuzzing }

    /// Whether the worker is in the code under test (running, waiting for or
    /// inside a critical section), where a stall is the code's.
    var isInCodeUnderTest: Bool { !isHarnessBusy && self != .atBarrier && self != .finished && self != .idle }

    /// Whether the participant takes no part in a stall at all (left its
    /// loop, or a main or helper thread with nothing to run).
    var isOut: Bool { self == .finished || self == .idle }

    /// Words for reports, for C's crash handler (indexed by raw value).
    package static let descriptions: [String] = (0..<16).map { raw in
        switch WorkerPhase(rawValue: UInt64(raw)) {
        case .starting?: return "starting"
        case .running?: return "running outside any critical section"
        case .acquiring?: return "waiting to enter"
        case .inside?: return "inside the critical section of"
        case .acquiringInner?: return "holding and waiting to enter a nested section of"
        case .insideInner?: return "inside a nested critical section of"
        case .betweenOperations?: return "between operations"
        case .atBarrier?: return "at a start barrier"
        case .finished?: return "finished"
        case .pacing?: return "waiting for its next scheduled start"
        case .fuzzing?: return "paused by the fuzzer"
        case .idle?: return "idle"
        case .blocked?: return "blocked in a lock, condition or queue of the code under test"
        case .awaiting?: return "in an async step (suspended in an await of the code under test, or running one of its jobs)"
        default: return "unknown"
        }
    }
}
