/// `bank`: accounts with balances; transfers move money between them while
/// audits read every balance.
///
/// The Account/Bank example of GCD-era guides. Invariants: a transfer never
/// overdraws (it checks and debits in one critical section), every audit sees the
/// total conserved and no negative balance (so audits need a consistent snapshot:
/// under a reader-writer strategy they take the read side), and at the end the
/// total is what it was at the start.
public struct BankWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "bank",
        summary: "accounts; transfers move money, audits check the total is conserved and nothing is negative",
        parameters: [
            .integer("accounts", "number of accounts", default: 16, range: 2...1_000_000),
            .integer("initial_balance", "starting balance of every account", default: 1_000, range: 0...1_000_000_000),
            .integer("max_transfer", "largest amount one transfer moves", default: 100, range: 1...1_000_000_000),
            .number("audit_ratio", "fraction of operations that are audits", default: 0.05, range: 0...1),
            .choice("variant", "correct, or nested-transaction: a transfer calls the bank's public (locking) balance check from inside its own critical section",
                    default: "correct", choices: ["correct", "nested-transaction"]),
        ]
    )

    /// The balances, in one block of raw memory.
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test is what keeps this safe; under
        // `unsynchronized` the races are the point and the checks catch them.
        let balances: UnsafeMutablePointer<Int>
        let count: Int
        let total: Int

        init(accounts: Int, initialBalance: Int) {
            count = accounts
            total = accounts * initialBalance
            balances = .allocate(capacity: accounts)
            balances.initialize(repeating: initialBalance, count: accounts)
        }

        deinit { balances.deallocate() }

        /// The sum and the lowest balance, read in one pass.
        func scan() -> (sum: Int, lowest: Int, account: Int) {
            var sum = 0, lowest = Int.max, account = 0
            for i in 0..<count {
                let b = balances[i]
                sum &+= b
                if b < lowest { lowest = b; account = i }
            }
            return (sum, lowest, account)
        }
    }

    let accounts: Int
    let initialBalance: Int
    let maxTransfer: Int
    let auditRatio: Double
    let nestedTransaction: Bool

    public init(parameters: WorkloadParameters) throws {
        nestedTransaction = try parameters.text("variant") == "nested-transaction"
        accounts = try parameters.integer("accounts")
        initialBalance = try parameters.integer("initial_balance")
        maxTransfer = try parameters.integer("max_transfer")
        auditRatio = try parameters.number("audit_ratio")
        guard accounts.multipliedReportingOverflow(by: initialBalance).overflow == false else {
            throw WorkloadParameterError(parameter: "initial_balance", "accounts × initial_balance overflows Int")
        }
    }

    public func makeState(threads: Int) -> State { State(accounts: accounts, initialBalance: initialBalance) }

    public func operations() -> [Operation<State>] {
        let maxTransfer = self.maxTransfer
        let transfer = Operation<State>("transfer", weight: 1 - auditRatio, steps: [
            .unguarded("choose") { state, frame in
                frame.r0 = frame.random.next(below: state.count)
                frame.r1 = (frame.r0 + 1 + frame.random.next(below: state.count - 1)) % state.count
                frame.r2 = 1 + frame.random.next(below: maxTransfer)
                return .next
            },
            // The nested-transaction variant re-enters the bank's own lock from
            // inside the transfer, as a transfer that calls the public, locking
            // `balance(of:)` would: fine for a recursive lock or an actor, a
            // deadlock (or a libdispatch trap) for everything else.
            Step("move", access: nestedTransaction ? .nestedWrite(outer: 0, inner: 0) : .write(0)) { state, frame in
                let from = frame.r0, to = frame.r1, amount = frame.r2
                guard state.balances[from] >= amount else { return .finish }
                state.balances[from] -= amount
                state.balances[to] += amount
                let left = state.balances[from]
                return left >= 0 ? .next : .violation("account \(from) overdrawn to \(left)")
            },
        ])
        let audit = Operation<State>("audit", weight: auditRatio, steps: [
            .read("scan") { state, _ in
                let (sum, lowest, account) = state.scan()
                if sum != state.total { return .violation("audit total \(sum) != \(state.total)") }
                if lowest < 0 { return .violation("audit found account \(account) at \(lowest)") }
                return .next
            },
        ])
        return [transfer, audit]
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        let (sum, lowest, account) = state.scan()
        var broken: [String] = []
        if sum != state.total { broken.append("final total \(sum) != \(state.total) (money created or destroyed)") }
        if lowest < 0 { broken.append("final balance of account \(account) is \(lowest)") }
        return broken
    }
}
