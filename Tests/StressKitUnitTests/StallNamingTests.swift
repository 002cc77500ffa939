import CStressSupport
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import StressKitFixtures
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

    /// A harness-aware primitive made without a name is called by its type
    /// and the place that made it; a second one made at the same place while
    /// the first lives, by its ordinal; never by its address.
    func testAnUnnamedWrapperIsCalledByItsTypeAndWhereItWasMade() {
        let file = "StressKitUnitTests/StallNamingTests.swift"
        let lock = StressLock(), lockLine = #line
        let pair = (0..<2).map { _ in StressMutex(0) }, pairLine = #line
        let condition = StressCondition(), conditionLine = #line
        let semaphore = StressSemaphore(value: 0), semaphoreLine = #line
        let once = StressOnce(), onceLine = #line
        XCTAssertEqual(PrimitiveNames.describe(Participation.key(lock)), "the StressLock made at \(file):\(lockLine)")
        XCTAssertEqual(PrimitiveNames.describe(Participation.key(pair[0])), "the StressMutex made at \(file):\(pairLine)")
        XCTAssertEqual(PrimitiveNames.describe(Participation.key(pair[1])), "the 2nd StressMutex made at \(file):\(pairLine)")
        XCTAssertEqual(PrimitiveNames.describe(Participation.key(condition)), "the StressCondition made at \(file):\(conditionLine)")
        XCTAssertEqual(PrimitiveNames.describeCondition(Participation.key(condition)),
                       "the StressCondition made at \(file):\(conditionLine)")
        XCTAssertEqual(PrimitiveNames.describe(Participation.key(condition.lockWord)),
                       "the lock of the StressCondition made at \(file):\(conditionLine)")
        XCTAssertEqual(PrimitiveNames.describe(Participation.key(semaphore.underlying)),
                       "the StressSemaphore made at \(file):\(semaphoreLine)")
        XCTAssertEqual(PrimitiveNames.describe(Participation.key(once)), "the StressOnce made at \(file):\(onceLine)")
        let named = StressLock(name: "tally")
        XCTAssertEqual(PrimitiveNames.describe(Participation.key(named)), "the lock 'tally'", "a name given wins")
    }

    /// A deadlock between two unnamed StressLocks, in a real trial: the
    /// wait-for cycle and the summary call each by its type and place, and
    /// no address appears (`replay` compares such messages run to run).
    func testADeadlockBetweenUnnamedStressLocksNamesThemByTypeAndPlace() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - scenario: _unnamed-lock-order
                strategies: [unsynchronized]
                duration: 30s
                warmup: 0
                deadlock_after: 200ms
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        let cycle = try XCTUnwrap(stall.cycle).joined(separator: "; ")
        // The two are told apart by their ordinals among the live locks made
        // at that place (the round's state, and any other the engine keeps).
        let named = try NSRegularExpression(pattern: #"the (\d+(st|nd|rd|th) )?StressLock made at StressKitFixtures/UnnamedLockOrderScenario\.swift:\d+"#)
        let names = Set(named.matches(in: cycle, range: NSRange(cycle.startIndex..., in: cycle)).compactMap {
            Range($0.range, in: cycle).map { String(cycle[$0]) }
        })
        XCTAssertEqual(names.count, 2, "two locks, each by its type and place: \(cycle)")
        for text in [cycle, stall.summary, trial.failure?.message ?? ""] + stall.workers.map(\.description) {
            XCTAssertFalse(text.contains("0x"), "an address in: \(text)")
        }
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
