import CStressSupport
import Foundation
import Synchronization
import XCTest

/// The adaptive spin of the controlled scheduler's batons: how its budget
/// backs off and how it comes back. Each parked wait here is made certain,
/// not timed: the passing thread waits until the waiter says it sleeps.
final class BatonSpinTests: XCTestCase {
    /// Runs `passer` on another thread once the waiter on `baton` says it
    /// sleeps, while this thread runs `wait`; returns when both are done.
    private func whenParked(_ baton: UnsafeMutablePointer<stress_baton>, wait: () -> Void,
                            passer: @escaping @Sendable (UnsafeMutablePointer<stress_baton>) -> Void) {
        // The address, not the pointer, crosses to the other thread (the
        // pointer is not Sendable; both threads only use it through atomics).
        let address = UInt(bitPattern: baton)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let baton = UnsafeMutablePointer<stress_baton>(bitPattern: address)!
            while stress_load32(&baton.pointee.sleeping) == 0 { usleep(50) }
            passer(baton)
            done.signal()
        }.start()
        wait()
        done.wait()
    }

    /// One wait of `baton` that spins in vain and parks: the other thread
    /// passes only once the waiter is parked (or about to be).
    private func parkedWait(_ baton: UnsafeMutablePointer<stress_baton>, spins: Int32 = 2_000, yields: Int32 = 0) {
        let seen = stress_baton_turn(baton)
        whenParked(baton, wait: { stress_baton_wait(baton, seen, spins, yields) }, passer: { stress_baton_pass($0) })
        XCTAssertNotEqual(stress_baton_turn(baton), seen)
    }

    /// A wait whose hand-off came while it spun (here: before it began).
    private func caughtWait(_ baton: UnsafeMutablePointer<stress_baton>) {
        let seen = stress_baton_turn(baton)
        stress_baton_pass(baton)
        stress_baton_wait(baton, seen, 2_000, 0)
    }

    private func withBaton(_ body: (UnsafeMutablePointer<stress_baton>) -> Void) {
        let baton = UnsafeMutablePointer<stress_baton>.allocate(capacity: 1)
        baton.initialize(to: stress_baton())
        defer { baton.deallocate() }
        body(baton)
    }

    func testAParkedWaitHalvesTheBudgetAndACaughtOneDoublesItBack() {
        withBaton { baton in
            parkedWait(baton)
            parkedWait(baton)
            XCTAssertEqual(baton.pointee.backoff, 2)
            caughtWait(baton)
            XCTAssertEqual(baton.pointee.backoff, 1)
        }
    }

    /// The trap the probes get a run out of: at the deepest backoff every
    /// short wait parks, so no wait ends while spinning to bring the budget
    /// back. Every 256th park arms a probe with the whole budget.
    func testEvery256thParkAtTheDeepestBackoffArmsAProbe() {
        withBaton { baton in
            baton.pointee.backoff = 7
            baton.pointee.parks = 254
            parkedWait(baton)
            XCTAssertEqual(baton.pointee.probe, 0)
            XCTAssertEqual(baton.pointee.backoff, 7)
            parkedWait(baton)
            XCTAssertEqual(baton.pointee.probe, 1)
            XCTAssertEqual(baton.pointee.backoff, 7)
        }
    }

    func testAProbeThatEndsWhileSpinningRestoresTheWholeBudget() {
        withBaton { baton in
            baton.pointee.backoff = 7
            baton.pointee.probe = 1
            caughtWait(baton)
            XCTAssertEqual(baton.pointee.backoff, 0)
            XCTAssertEqual(baton.pointee.probe, 0)
        }
    }

    func testAProbeThatParksLeavesTheBackoffAsItWas() {
        withBaton { baton in
            baton.pointee.backoff = 7
            baton.pointee.probe = 1
            parkedWait(baton)
            XCTAssertEqual(baton.pointee.backoff, 7)
            XCTAssertEqual(baton.pointee.probe, 0)
        }
    }

    /// With no spin budget (one CPU), a wait parks at once and the backoff
    /// is left alone.
    func testWithoutASpinBudgetTheBackoffStays() {
        withBaton { baton in
            parkedWait(baton, spins: 0)
            XCTAssertEqual(baton.pointee.backoff, 0)
            XCTAssertEqual(baton.pointee.parks, 0)
        }
    }

    /// Where it does not spin, a wait yields its CPU before it parks: a
    /// hand-off that comes meanwhile ends it without a park. Here the budget
    /// of yields is one no passer could outlast, so the waiter never says it
    /// sleeps; the passer watches for 20 ms that it does not (a wait that
    /// parked at once would say so within microseconds), then passes.
    func testAHandOffWhileTheWaiterYieldsEndsItWithoutAPark() {
        withBaton { baton in
            let seen = stress_baton_turn(baton)
            let address = UInt(bitPattern: baton)
            let sawItPark = Atomic<Bool>(false)
            let done = DispatchSemaphore(value: 0)
            Thread {
                let baton = UnsafeMutablePointer<stress_baton>(bitPattern: address)!
                let end = DispatchTime.now().uptimeNanoseconds + 20_000_000
                while DispatchTime.now().uptimeNanoseconds < end {
                    if stress_load32(&baton.pointee.sleeping) != 0 { sawItPark.store(true, ordering: .relaxed) }
                    usleep(100)
                }
                stress_baton_pass(baton)
                done.signal()
            }.start()
            stress_baton_wait(baton, seen, 0, .max)
            done.wait()
            XCTAssertEqual(stress_baton_turn(baton), seen &+ 1)
            XCTAssertFalse(sawItPark.load(ordering: .relaxed), "the waiter yielded rather than park")
        }
    }

    /// Its yields spent, the wait parks as before, and a pass wakes it.
    func testAWaitThatYieldedInVainParksAndIsWoken() {
        withBaton { baton in
            parkedWait(baton, spins: 0, yields: 4)
            XCTAssertEqual(baton.pointee.backoff, 0, "the spin's backoff is the spin's alone")
        }
    }

    /// The two halves of a pass, the wake-up later: a waiter parked between
    /// them is woken by the second.
    func testACountThenAWakeReleasesAParkedWaiter() {
        withBaton { baton in
            let seen = stress_baton_turn(baton)
            whenParked(baton, wait: { stress_baton_wait(baton, seen, 0, 0) }, passer: { baton in
                stress_baton_count(baton)
                usleep(1_000)
                stress_baton_wake(baton)
            })
            XCTAssertEqual(stress_baton_turn(baton), seen &+ 1)
        }
    }
}
