import CStressSupport
import Foundation
import Synchronization

/// The phases of a trial, published by the coordinator and read by every worker
/// once per operation (a relaxed load of a line nobody writes until the phase
/// changes, so it costs no coherence traffic in between).
final class TrialControl: Sendable {
    static let warmup = 0, measure = 1, stop = 2
    let phase = Atomic<Int>(TrialControl.warmup)
    /// Opens when the trial stops, waking a coordinator that sleeps in ``sleep(upTo:)``.
    private let stopped = ConditionSignal()
    /// ``TrialSettings/stopRequested``, polled only by the coordinator.
    private let stopRequested: (@Sendable () -> Bool)?

    init(stopRequested: (@Sendable () -> Bool)? = nil) { self.stopRequested = stopRequested }

    @inline(__always)
    var current: Int { phase.load(ordering: .relaxed) }

    func enter(_ next: Int) {
        phase.store(next, ordering: .releasing)
        if next == TrialControl.stop { stopped.open() }
    }

    /// Moves from warm-up to the measured window unless a worker already
    /// stopped the trial (stop on first violation).
    func beginMeasuring() {
        _ = phase.compareExchange(expected: TrialControl.warmup, desired: TrialControl.measure, ordering: .acquiringAndReleasing)
    }

    /// Sleeps up to `ns`, returning early if the trial was stopped (by a
    /// worker, or from outside: then it stops the trial). One timed wait when
    /// nobody outside can ask to stop, so the coordinator does not wake up
    /// during the window; else waits of 20 ms between asking.
    func sleep(upTo ns: UInt64) {
        guard let stopRequested else {
            _ = stopped.wait(upTo: ns)
            return
        }
        let until = MonotonicClock.now() &+ ns
        while current != TrialControl.stop {
            if stopRequested() {
                enter(TrialControl.stop)
                return
            }
            let now = MonotonicClock.now()
            guard now < until else { return }
            _ = stopped.wait(upTo: Swift.min(until &- now, 20_000_000))
        }
    }

    /// For a trial without a timed window: waits until `done()` while asking
    /// the outside whether to stop, and stops the trial if it says so. Returns
    /// at once when nobody outside can ask.
    func watch(until done: () -> Bool) {
        guard let stopRequested else { return }
        while !done() {
            if stopRequested() {
                enter(TrialControl.stop)
                return
            }
            MonotonicClock.sleep(nanoseconds: 5_000_000)
        }
    }
}
