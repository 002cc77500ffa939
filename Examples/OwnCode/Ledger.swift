import Foundation
import StressKit

/// Code that is not changed at all, not even the type of its primitives: a
/// ledger that moves money between two books, each guarded by a plain
/// Foundation lock (or a pthread read-write lock). Run with `interpose: true`
/// in the plan, the trial process has the pthread interposer preloaded, and
/// the locks' pthread calls publish what each thread holds and waits for,
/// with fuzz points around them, as the harness-aware wrappers do. (The one
/// optional line it may add: naming its locks for stall reports, `named`.)
public final class Ledger: @unchecked Sendable {
    // @unchecked: the two locks keep the two books safe, which is what the
    // example tests.

    /// What guards the two books: each kind is a different set of pthread
    /// calls underneath, all of them interposed.
    public enum Locks: String, Sendable, CaseIterable {
        /// Two `NSLock`s (`pthread_mutex_lock`/`unlock`).
        case nslock
        /// Two `NSRecursiveLock`s, the cash book's taken twice by a sale (a
        /// helper that locks again): a recursive pthread mutex.
        case recursiveLock = "recursive-lock"
        /// Two `pthread_rwlock_t`s: sales and refunds write, `balance` reads.
        case rwlock
        /// The cash book's `NSLock` and the sales book's `NSCondition`: a sale
        /// broadcasts on the condition, and an audit waits on it for the next
        /// sale (at most 1 ms, `pthread_cond_timedwait`).
        case lockAndCondition = "lock-and-condition"
    }

    /// Whether `settle` takes the locks in the other order (a lock-order
    /// inversion with `post`).
    public let invertedOrder: Bool
    /// What guards the books.
    public let locks: Locks

    private let cashLock: BookLock
    private var cash = 1_000  // guarded by cashLock
    private let salesLock: BookLock
    private var sales = 0  // guarded by salesLock

    /// A ledger guarded by `locks`; with `invertedOrder`, `settle` has the
    /// lock-order bug. With `named`, it names its locks for stall reports
    /// ("ledger.cash", "ledger.sales"): the one call a team adds where its
    /// locks are made (``PrimitiveNames/name(_:_:)``; it costs nothing
    /// after). Unnamed, a report calls each by what it is and where the code
    /// first took it ("the mutex first taken at post/post").
    public init(invertedOrder: Bool, locks: Locks = .nslock, named: Bool = false) {
        self.invertedOrder = invertedOrder
        self.locks = locks
        switch locks {
        case .nslock: (cashLock, salesLock) = (PlainLock(), PlainLock())
        case .recursiveLock: (cashLock, salesLock) = (RecursiveLock(), RecursiveLock())
        case .rwlock: (cashLock, salesLock) = (ReadWriteLock(), ReadWriteLock())
        case .lockAndCondition: (cashLock, salesLock) = (PlainLock(), ConditionLock())
        }
        if named {
            cashLock.name("ledger.cash")
            salesLock.name("ledger.sales")
        }
    }

    /// Records a sale: cash in, sales up, both books at once (cash, then sales).
    public func post(_ amount: Int) {
        cashLock.lock()
        if locks == .recursiveLock { addToCash(amount) } else { cash += amount }
        salesLock.lock()
        sales += amount
        salesLock.signal()
        salesLock.unlock()
        cashLock.unlock()
    }

    /// A helper that takes the cash book's lock itself, called with it held.
    private func addToCash(_ amount: Int) {
        cashLock.lock()
        cash += amount
        cashLock.unlock()
    }

    /// Refunds a sale: the same two books, and (with the bug) the other order.
    public func settle(_ amount: Int) {
        let first = invertedOrder ? salesLock : cashLock
        let second = invertedOrder ? cashLock : salesLock
        first.lock()
        second.lock()
        cash -= amount
        sales -= amount
        second.unlock()
        first.unlock()
    }

    /// Cash minus sales, read under both locks (shared where they can be):
    /// constant if every update is whole.
    public var balance: Int {
        cashLock.lockShared()
        salesLock.lockShared()
        defer {
            salesLock.unlock()
            cashLock.unlock()
        }
        return cash - sales
    }

    /// Waits for the next sale, 1 ms at most, where the sales book has a
    /// condition (elsewhere returns at once); then the balance.
    public func audit() -> Int {
        salesLock.lock()
        salesLock.waitForSignal(upTo: 0.001)
        salesLock.unlock()
        return balance
    }
}

/// What a book's guard does, whatever the primitive underneath.
private protocol BookLock: AnyObject, Sendable {
    func lock()
    /// As `lock()`, but shared with other readers where the primitive can.
    func lockShared()
    func unlock()
    /// Wakes waiters, where the primitive is a condition (called holding it).
    func signal()
    /// Waits to be signalled, at most `seconds`, where the primitive is a
    /// condition (called holding it).
    func waitForSignal(upTo seconds: Double)
    /// Names the primitive for stall reports.
    func name(_ name: String)
}

extension BookLock {
    func lockShared() { lock() }
    func signal() {}
    func waitForSignal(upTo seconds: Double) {}
}

private final class PlainLock: BookLock {
    private let lock_ = NSLock()
    func lock() { lock_.lock() }
    func unlock() { lock_.unlock() }
    func name(_ name: String) { PrimitiveNames.name(lock_, name) }
}

private final class RecursiveLock: BookLock {
    private let lock_ = NSRecursiveLock()
    func lock() { lock_.lock() }
    func unlock() { lock_.unlock() }
    func name(_ name: String) { PrimitiveNames.name(lock_, name) }
}

private final class ConditionLock: BookLock {
    private let condition = NSCondition()
    func lock() { condition.lock() }
    func unlock() { condition.unlock() }
    func signal() { condition.broadcast() }
    func waitForSignal(upTo seconds: Double) { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
    func name(_ name: String) { PrimitiveNames.name(condition, name) }
}

private final class ReadWriteLock: BookLock, @unchecked Sendable {
    // @unchecked: the pthread read-write lock lives in memory of its own and
    // is only ever used through pthread's calls, which is its purpose.
    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        rwlock = .allocate(capacity: 1)
        pthread_rwlock_init(rwlock, nil)
    }

    deinit {
        PrimitiveNames.forget(rwlock)
        pthread_rwlock_destroy(rwlock)
        rwlock.deallocate()
    }

    func lock() { pthread_rwlock_wrlock(rwlock) }
    func lockShared() { pthread_rwlock_rdlock(rwlock) }
    func unlock() { pthread_rwlock_unlock(rwlock) }
    func name(_ name: String) { PrimitiveNames.name(rwlock: rwlock, name) }
}
