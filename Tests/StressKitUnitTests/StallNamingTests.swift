import CStressSupport
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// What stall reports call things: a Foundation or pthread lock named with
/// ``PrimitiveNames``, an interposed lock nobody named, a lock held twice,
/// the main thread.
final class StallNamingTests: XCTestCase {
    private func key<T>(_ pointer: UnsafeMutablePointer<T>) -> UInt64 { UInt64(UInt(bitPattern: pointer)) }

    /// The keys the interposer publishes for a Foundation lock are its
    /// pthread objects' addresses: naming the lock names them, each as what it is.
    func testAFoundationLockIsNamedThroughItsPthreadObjects() throws {
        #if os(Linux)
        let lock = NSLock(), recursive = NSRecursiveLock(), condition = NSCondition()
        XCTAssertTrue(PrimitiveNames.name(lock, "cash"))
        XCTAssertTrue(PrimitiveNames.name(recursive, "books"))
        XCTAssertTrue(PrimitiveNames.name(condition, "sales"))
        let lockKeys = PrimitiveNames.pthreadObjects(of: lock)
        XCTAssertEqual(lockKeys.count, 1)
        XCTAssertEqual(PrimitiveNames.describe(lockKeys[0].key), "the lock 'cash'")
        XCTAssertEqual(PrimitiveNames.describe(PrimitiveNames.pthreadObjects(of: recursive)[0].key), "the recursive lock 'books'")
        let conditionKeys = PrimitiveNames.pthreadObjects(of: condition)
        XCTAssertEqual(Set(conditionKeys.map { PrimitiveNames.describe($0.key) }),
                       ["the lock of condition 'sales'", "the condition 'sales'"])
        #else
        throw XCTSkip("Foundation's locks are pthread mutexes the interposer sees on Linux only")
        #endif
    }

    /// A name given through a lock goes with it: once the lock is gone, a
    /// new primitive at the same address is not called by the old name.
    func testANameGoesAwayWithItsLock() throws {
        #if os(Linux)
        var lock: NSLock? = NSLock()
        PrimitiveNames.name(lock!, "short-lived")
        let key = try XCTUnwrap(PrimitiveNames.pthreadObjects(of: lock!).first?.key)
        XCTAssertEqual(PrimitiveNames.describe(key), "the lock 'short-lived'")
        lock = nil
        XCTAssertFalse(PrimitiveNames.describe(key).contains("short-lived"))
        #else
        throw XCTSkip("Foundation's locks are pthread mutexes the interposer sees on Linux only")
        #endif
    }

    /// A pthread mutex, read-write lock or condition of your own, named and forgotten.
    func testPthreadObjectsAreNamedUntilForgotten() {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let rwlock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        defer { mutex.deallocate(); rwlock.deallocate(); condition.deallocate() }
        PrimitiveNames.name(mutex: mutex, "index")
        PrimitiveNames.name(rwlock: rwlock, "catalog")
        PrimitiveNames.name(condition: condition, "ready")
        XCTAssertEqual(PrimitiveNames.describe(key(mutex)), "the mutex 'index'")
        XCTAssertEqual(PrimitiveNames.describe(key(rwlock)), "the read-write lock 'catalog'")
        XCTAssertEqual(PrimitiveNames.describe(key(condition)), "the condition 'ready'")
        PrimitiveNames.forget(mutex)
        PrimitiveNames.forget(rwlock)
        PrimitiveNames.forget(condition)
        XCTAssertEqual(PrimitiveNames.describe(key(mutex)), "the lock at 0x" + String(key(mutex), radix: 16))
        XCTAssertEqual(PrimitiveNames.describeCondition(key(condition)), "the condition at 0x" + String(key(condition), radix: 16),
                       "something waited on for a signal is a condition, named or not")
    }

    /// An interposed lock nobody named: what it is, and where it was first taken.
    func testAnUnnamedInterposedLockIsCalledByItsKindAndSite() {
        let labels = ["post/post", "settle/settle"]
        XCTAssertEqual(FirstTaken(kind: .mutex, site: 0, rank: 1).description(labels: labels), "the mutex first taken at post/post")
        XCTAssertEqual(FirstTaken(kind: .recursiveMutex, site: 1, rank: 2).description(labels: labels),
                       "the 2nd recursive mutex first taken at settle/settle")
        XCTAssertEqual(FirstTaken(kind: .rwlock, site: 1, rank: 3).description(labels: labels),
                       "the 3rd read-write lock first taken at settle/settle")
        XCTAssertEqual(FirstTaken(kind: .condition, site: 0, rank: 1).description(labels: labels),
                       "the condition first waited on at post/post")
        XCTAssertEqual(FirstTaken(kind: .conditionMutex, site: nil, rank: 1).description(labels: labels),
                       "the lock of a condition first taken outside any step")
        XCTAssertEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(FirstTaken.ordinal),
                       ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"])
    }

    /// A recursive lock taken twice is published twice (so that each unlock
    /// gives back one take) and listed once, with its count.
    func testALockHeldTwiceIsListedOnceWithItsCount() {
        let cash: UInt64 = 0x7000, sales: UInt64 = 0x7100
        PrimitiveNames.register(cash, "the recursive lock 'cash'")
        PrimitiveNames.register(sales, "the lock 'sales'")
        defer { PrimitiveNames.unregister(cash); PrimitiveNames.unregister(sales) }
        XCTAssertEqual(Watchdog.heldList([cash, sales, cash]),
                       "the recursive lock 'cash' (held 2 times: re-entered), the lock 'sales'")
        XCTAssertEqual(Watchdog.heldList([sales]), "the lock 'sales'")

        // In the wait-for cycle too: worker 0 holds cash twice and wants
        // sales; worker 1 holds sales and wants cash.
        let blocked = SiteWord(site: 0, phase: .blocked)
        let states = [
            ParticipantState(site: blocked, completed: 1, waitKey: sales, waitKind: UInt64(STRESS_WAIT_LOCK), held: [cash, cash]),
            ParticipantState(site: blocked, completed: 1, waitKey: cash, waitKind: UInt64(STRESS_WAIT_LOCK), held: [sales]),
        ]
        let graph = WaitForGraph(states, workers: 2, singleDomain: false)
        let cycle = graph.firstCycle().map(graph.describe)
        XCTAssertEqual(cycle, [
            "worker 0 holds the recursive lock 'cash' (held 2 times: re-entered) and waits for the lock 'sales', held by worker 1",
            "worker 1 holds the lock 'sales' and waits for the recursive lock 'cash', held by worker 0",
        ])
    }

    /// The main thread and helper threads are called what they are, in every
    /// report that lists the workers.
    func testTheMainThreadIsNotANumberedWorker() {
        let main = StalledWorker(thread: 2, participant: "the main thread", operation: nil, step: nil, phase: "blocked",
                                 description: "waiting for the lock 'tally'", resource: nil, innerResource: nil, completedOps: 0)
        let worker = StalledWorker(thread: 1, participant: nil, operation: "run", step: "run", phase: "blocked",
                                   description: "run/run: waiting for the main queue", resource: nil, innerResource: nil, completedOps: 3)
        XCTAssertEqual(main.name, "the main thread")
        XCTAssertEqual(worker.name, "worker 1")
        let stall = StallReport(kind: .deadlock, stalledForNs: 1, workers: [worker, main], cycle: nil, summary: "deadlock")
        var result = Synthetic.trial(repetition: 0, opsPerSecond: 1, latencyNs: 1, outcome: .deadlock)
        result.failure = FailureReport(message: "deadlock")
        result.stall = stall
        let text = TableReport.details(result, planFile: "p.yaml")
        XCTAssertTrue(text.contains("    the main thread: waiting for the lock 'tally'\n"), text)
        XCTAssertFalse(text.contains("worker 2"), text)
        XCTAssertTrue(text.contains("    worker 1: run/run: waiting for the main queue (3 ops done)"), text)
    }
}
