import Synchronization

/// The bank's shared state: what the strategy under test guards, and what the
/// checks read.
extension BankWorkload {
    /// Money a worker moved into and out of the bank (in its own memory: see ``State``).
    struct Flow {
        var moneyIn = 0
        var moneyOut = 0
    }

    /// Balances, closed flags and the running ledger, in raw memory.
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test is what keeps this safe; under
        // `unsynchronized` the races are the point and the checks catch them.
        let balances: UnsafeMutablePointer<Int>
        /// 1 for a closed account.
        let closed: UnsafeMutablePointer<Int>
        /// Net money moved in from outside (deposits and reopenings minus
        /// withdrawals and close-outs), one running figure per resource, updated in
        /// the same critical section as the balances so audits know what to expect.
        let ledger: UnsafeMutablePointer<Int>
        let resources: Int
        /// Each worker's own deposits and withdrawals. Kept here rather than in the
        /// frame's tally because a step's frame changes are lost under strategies
        /// that run writes asynchronously; only the worker's own steps write its slot.
        let flows: CacheLineArray<Flow>
        let threads: Int
        let count: Int
        let total: Int
        /// How many operations are inside a section that needs both branches
        /// (lock-order-inversion variant): a checker, not part of the bank.
        let branchOccupancy = Atomic<Int>(0)

        init(accounts: Int, initialBalance: Int, resources: Int, threads: Int) {
            count = accounts
            total = accounts * initialBalance
            balances = .allocate(capacity: accounts)
            balances.initialize(repeating: initialBalance, count: accounts)
            closed = .allocate(capacity: accounts)
            closed.initialize(repeating: 0, count: accounts)
            self.resources = resources
            ledger = .allocate(capacity: resources)
            ledger.initialize(repeating: 0, count: resources)
            self.threads = threads
            flows = CacheLineArray(count: threads)
        }

        deinit {
            balances.deallocate()
            closed.deallocate()
            ledger.deallocate()
            flows.deallocate()
        }

        /// What the running ledger says the bank should hold now.
        var expectedTotal: Int {
            var net = 0
            for r in 0..<resources { net &+= ledger[r] }
            return total &+ net
        }

        /// One pass over every account: the invariants an audit checks, as a
        /// message per broken one (empty when all hold). Allocates only to report.
        func audit(expected: Int, when: String) -> String? {
            var sum = 0, lowest = Int.max, lowAccount = 0, closedHolding = -1
            for i in 0..<count {
                let b = balances[i]
                sum &+= b
                if b < lowest { lowest = b; lowAccount = i }
                if closed[i] != 0 && b != 0 && closedHolding < 0 { closedHolding = i }
            }
            if sum != expected {
                return "conservation: \(when) the accounts hold \(sum) but the ledger says \(expected) (money created or destroyed)"
            }
            if lowest < 0 { return "no overdraft: \(when) account \(lowAccount) is at \(lowest)" }
            if closedHolding >= 0 {
                return "closed accounts hold nothing: \(when) closed account \(closedHolding) holds \(balances[closedHolding])"
            }
            return nil
        }
    }
}
