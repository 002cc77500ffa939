import StressKit

/// A small thread-safe class written the ordinary way, as a team would: a
/// job board. Clients post jobs; runners take them and do them, at most
/// `slots` at a time; a tally counts finished jobs; a badge on the main thread
/// shows the tally.
///
/// It guards its state with three primitives, each the usual way:
/// - a private serial queue for the pending jobs,
/// - a lock for the tally,
/// - a condition for the free slots (runners wait for one).
///
/// It is tested unchanged except for the type of its primitives (see
/// `Primitives.swift`). ``Bug`` injects one classic mistake per primitive, so
/// the example shows what the harness finds; `nil` is the correct class.
public final class JobBoard: @unchecked Sendable {
    // @unchecked: the class's own queue, lock and condition keep its state
    // safe, which is what the example tests.

    /// One injected mistake.
    public enum Bug: String, Sendable, CaseIterable {
        /// The tally is read in one critical section and written back in the
        /// next: two runners finishing together count one job.
        case lostUpdate = "lost-update"
        /// A runner waits for a free slot with `if` instead of `while`: woken
        /// by a broadcast together with another runner, both take the one slot.
        case ifNotWhile = "if-not-while"
        /// `post` compacts a long backlog by calling `pendingCount` from inside
        /// the queue's own block: a `sync` onto the queue it is on.
        case syncOntoOwnQueue = "sync-onto-own-queue"
        /// `finish` counts the job while it holds the slots' lock (slots, then
        /// tally); `status` takes the tally, then the slots.
        case lockOrder = "lock-order"
        /// `finish` shows the tally on the main thread with `main.sync` while
        /// holding the tally's lock; the main thread may be refreshing the
        /// badge, which takes that lock.
        case mainSyncDeadlock = "main-sync-deadlock"
        /// `finish` sets the badge from the runner's thread instead of the main
        /// thread's.
        case offMain = "off-main"
        /// A runner holds the tally's lock while it waits for a free slot
        /// ("keep the tally steady until the job starts"), and `finish` counts
        /// the job before it frees the slot. The one runner that could free a
        /// slot waits for the lock the waiting runner holds: a condition wait
        /// that only a blocked worker could signal.
        case waitHoldingLock = "wait-holding-lock"
        /// `post` measures the backlog against the jobs done, reading the
        /// tally inside the queue's block; `finish` notes the backlog
        /// (`pendingCount`, a `sync` onto the queue) while it holds the
        /// tally's lock: a `sync` to a queue whose running block waits for
        /// the lock the caller holds.
        case queueLockOrder = "queue-lock-order"
    }

    /// What ``status()`` reads, in one consistent look.
    public struct Status: Sendable {
        /// Jobs finished so far.
        public var finished: Int
        /// Slots in use.
        public var busy: Int
    }

    /// How many jobs may run at once.
    public let slots: Int
    private let bug: Bug?

    private let queue = Queue(label: "job-board.jobs")
    private var pending: [Int] = []  // guarded by `queue`
    private var lag = 0  // guarded by `queue` (with the bug only)

    private let tallyLock = Lock(name: "job-board.tally")
    private var finished = 0  // guarded by `tallyLock`
    private var backlogAtFinish = 0  // guarded by `tallyLock` (with the bug only)

    private let slotsCondition = Condition(name: "job-board.slots")
    private var freeSlots: Int  // guarded by `slotsCondition`

    /// The tally as the main thread last showed it (main thread only).
    private let badge = Confined(0, to: .mainThread, name: "the badge")

    /// A board that runs at most `slots` jobs at once, with `bug` injected.
    public init(slots: Int, bug: Bug? = nil) {
        self.slots = slots
        self.bug = bug
        freeSlots = slots
        pending.reserveCapacity(1024)
    }

    /// Posts a job.
    public func post(_ job: Int) {
        queue.sync {
            pending.append(job)
            if bug == .queueLockOrder { lag = pending.count - finishedCount }  // the tally's lock, inside the queue's block
            guard pending.count > 16 else { return }
            // A long backlog: drop the oldest half (a client retries them).
            if bug == .syncOntoOwnQueue {
                pending.removeFirst(pendingCount / 2)  // pendingCount is queue.sync: onto this very queue
            } else {
                pending.removeFirst(pending.count / 2)
            }
        }
    }

    /// Jobs waiting to run.
    public var pendingCount: Int { queue.sync { pending.count } }

    /// Takes the next job, if any, and does it with `work` in a free slot
    /// (waiting for one). Returns whether there was a job.
    @discardableResult
    public func runNext(_ work: (Int) -> Void) -> Bool {
        guard let job = queue.sync(execute: { pending.popLast() }) else { return false }
        if bug == .waitHoldingLock {
            tallyLock.withLock { takeSlot() }  // waits for a slot with the tally's lock held
        } else {
            takeSlot()
        }
        work(job)
        finish()
        return true
    }

    /// The tally and the slots in use, read together.
    public func status() -> Status {
        tallyLock.withLock {
            slotsCondition.withLock { Status(finished: finished, busy: slots - freeSlots) }
        }
    }

    /// Jobs finished so far.
    public var finishedCount: Int { tallyLock.withLock { finished } }

    private func takeSlot() {
        slotsCondition.lock()
        if bug == .ifNotWhile {
            if freeSlots == 0 { slotsCondition.wait() }
        } else {
            while freeSlots == 0 { slotsCondition.wait() }
        }
        freeSlots -= 1
        slotsCondition.unlock()
    }

    private func finish() {
        if bug == .waitHoldingLock {
            tallyLock.withLock { finished += 1 }  // counted before the slot is freed
        }
        slotsCondition.lock()
        freeSlots += 1
        if bug == .lockOrder {
            tallyLock.withLock { finished += 1 }  // "while we hold a lock anyway"
        }
        slotsCondition.broadcast()
        slotsCondition.unlock()

        switch bug {
        case .lockOrder, .waitHoldingLock:
            return
        case .lostUpdate:
            let seen = tallyLock.withLock { finished }
            tallyLock.withLock { finished = seen + 1 }
        case .mainSyncDeadlock:
            tallyLock.withLock {
                finished += 1
                if finished % 4 == 2 { Queue.main.sync { badge.value = finished } }  // "show it now"
            }
        case .offMain:
            let count = tallyLock.withLock { () -> Int in finished += 1; return finished }
            if count % 16 == 8 { badge.value = count }  // not on the main thread
        case .queueLockOrder:
            tallyLock.withLock {
                finished += 1
                backlogAtFinish = pendingCount  // a queue.sync with the tally's lock held
            }
        case .ifNotWhile, .syncOntoOwnQueue, nil:
            tallyLock.withLock { finished += 1 }
        }
        refreshBadgeNowAndThen()
    }

    /// Every 16 jobs, asks the main thread to show the tally.
    private func refreshBadgeNowAndThen() {
        guard finishedCount % 16 == 0 else { return }
        Queue.main.async { [self] in
            badge.value = tallyLock.withLock { finished }
        }
    }
}
