import Foundation

/// Code that is not changed at all, not even the type of its primitives: a
/// ledger that moves money between two books, each guarded by a plain
/// Foundation `NSLock`. Run with `interpose: true` in the plan, the trial
/// process has the pthread interposer preloaded, and `NSLock`'s pthread calls
/// publish what each thread holds and waits for, with fuzz points around
/// them, as the harness-aware wrappers do.
public final class Ledger: @unchecked Sendable {
    // @unchecked: the two locks keep the two books safe, which is what the
    // example tests.

    /// Whether `settle` takes the locks in the other order (a lock-order
    /// inversion with `post`).
    public let invertedOrder: Bool

    private let cashLock = NSLock()
    private var cash = 1_000  // guarded by cashLock
    private let salesLock = NSLock()
    private var sales = 0  // guarded by salesLock

    /// A ledger; with `invertedOrder`, `settle` has the lock-order bug.
    public init(invertedOrder: Bool) {
        self.invertedOrder = invertedOrder
    }

    /// Records a sale: cash in, sales up, both books at once (cash, then sales).
    public func post(_ amount: Int) {
        cashLock.lock()
        salesLock.lock()
        cash += amount
        sales += amount
        salesLock.unlock()
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

    /// Cash minus sales, read under both locks: constant if every update is whole.
    public var balance: Int {
        cashLock.lock()
        salesLock.lock()
        defer {
            salesLock.unlock()
            cashLock.unlock()
        }
        return cash - sales
    }
}
