#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A one-shot meeting point between `parties` worker threads and the thread
/// that coordinates them: workers ``arriveAndWait()``; the coordinator waits
/// until all have arrived (``waitForAll()``), does what must happen while every
/// worker is held (reading counters, calibrating), then ``release()``s them
/// together. Blocks on condition variables (not a spin) so that more workers
/// than cores do not starve the last arrival.
final class ThreadGate: Sendable {
    private let parties: Int
    private let arrived = Mutex(0)
    private let allArrived = ConditionSignal()
    private let released = ConditionSignal()

    init(parties: Int) { self.parties = parties }

    /// Called by a worker: blocks until ``release()``.
    func arriveAndWait() {
        let isLast = arrived.withLockSeen { count -> Bool in
            count += 1
            return count == parties
        }
        if isLast { allArrived.open() }
        released.waitUntilOpen()
    }

    /// Called by the coordinator: blocks until every worker has arrived.
    func waitForAll() { allArrived.waitUntilOpen() }

    /// Whether every worker has arrived (without waiting).
    var hasAllArrived: Bool { arrived.withLockSeen { $0 == parties } }

    /// Lets every worker go (and any that arrives later pass straight through).
    func release() { released.open() }
}
