import Synchronization

/// `bank`: accounts with balances; transfers move money between them, deposits
/// and withdrawals move it in and out, accounts close (paying out their balance)
/// and reopen, and audits read every balance.
///
/// The Account/Bank example of GCD-era guides (the queue-naming convention's
/// `com.example.bank.accounts`). Invariants:
/// - **no overdraft**: a transfer or withdrawal never takes an account below zero
///   (it checks the balance and debits it in one critical section);
/// - **closed accounts hold nothing**: closing pays the balance out, and a closed
///   account refuses transfers, deposits and withdrawals until it reopens;
/// - **conservation**: the money in the bank is always the initial total plus
///   deposits minus withdrawals and close-outs. Audits check it against a running
///   ledger kept inside the same critical sections (so an audit needs a consistent
///   snapshot: under a reader-writer strategy it takes the read side); the final
///   check adds up what every worker itself deposited and withdrew.
///
/// The `variant` parameter selects a correct bank or one of the classic bugs:
/// - `lost-update`: a deposit reads the balance in one critical section and
///   stores balance + amount in the next, so concurrent changes in between are lost;
/// - `check-then-act`: a withdrawal checks the balance in one critical section and
///   debits it in another, so two withdrawals can both pass the check (overdraft);
/// - `nested-transaction`: a transfer calls the bank's public (locking) balance
///   check from inside its own critical section: a deadlock or a trap for every
///   non-recursive strategy;
/// - `lock-order-inversion`: the bank has two branches, each with its own lock (or
///   actor); a transfer locks the source branch, then the destination, so
///   transfers in opposite directions take the two locks in opposite orders:
///   a deadlock under locks and queues. Under actors the inner call suspends the
///   outer actor, which runs other work meanwhile: no deadlock, but the transfer
///   is no longer atomic, and audits and the final total see the damage. This
///   variant runs only cross-branch transfers and audits.
package struct BankWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "bank",
        summary: "accounts; transfers, deposits, withdrawals, closing and audits; money is conserved and nothing goes negative",
        parameters: [
            .integer("accounts", "number of accounts", default: 16, range: 2...1_000_000),
            .integer("initial_balance", "starting balance of every account (and the opening deposit when one reopens)",
                     default: 1_000, range: 0...1_000_000_000),
            .integer("max_transfer", "largest amount one transfer, deposit or withdrawal moves", default: 100, range: 1...1_000_000_000),
            .number("audit_ratio", "fraction of operations that are audits", default: 0.05, range: 0...1),
            .number("deposit_ratio", "fraction of operations that are deposits", default: 0.1, range: 0...1),
            .number("withdraw_ratio", "fraction of operations that are withdrawals", default: 0.1, range: 0...1),
            .number("close_ratio", "fraction of operations that close an account (as many again reopen one); transfers take what the ratios leave",
                    default: 0.01, range: 0...0.5),
            .choice("variant", """
                correct; or a bug: lost-update (deposit split across two critical sections), check-then-act \
                (withdraw checks and debits in two critical sections), nested-transaction (a transfer re-enters \
                the bank's lock), lock-order-inversion (two branches locked in opposite orders by opposite transfers)
                """,
                    default: "correct", choices: Variant.allCases.map(\.rawValue)),
        ]
    )

    /// The bug a plan selects with `variant`.
    public enum Variant: String, CaseIterable, Sendable {
        case correct
        case lostUpdate = "lost-update"
        case checkThenAct = "check-then-act"
        case nestedTransaction = "nested-transaction"
        case lockOrderInversion = "lock-order-inversion"
    }

    let accounts: Int
    let initialBalance: Int
    let maxTransfer: Int
    let auditRatio: Double
    let depositRatio: Double
    let withdrawRatio: Double
    let closeRatio: Double
    let variant: Variant

    public init(parameters: WorkloadParameters) throws {
        variant = Variant(rawValue: try parameters.text("variant")) ?? .correct
        accounts = try parameters.integer("accounts")
        initialBalance = try parameters.integer("initial_balance")
        maxTransfer = try parameters.integer("max_transfer")
        auditRatio = try parameters.number("audit_ratio")
        depositRatio = try parameters.number("deposit_ratio")
        withdrawRatio = try parameters.number("withdraw_ratio")
        closeRatio = try parameters.number("close_ratio")
        guard accounts.multipliedReportingOverflow(by: initialBalance).overflow == false else {
            throw WorkloadParameterError(parameter: "initial_balance", "accounts × initial_balance overflows Int")
        }
        guard transferRatio >= -1e-9 else {
            throw WorkloadParameterError(parameter: nil, """
                audit_ratio + deposit_ratio + withdraw_ratio + 2 × close_ratio (closing and reopening) \
                must be at most 1; transfers take the rest
                """)
        }
    }

    /// What the other operations leave for transfers.
    private var transferRatio: Double { 1 - auditRatio - depositRatio - withdrawRatio - 2 * closeRatio }

    /// One resource, or one per branch when the bank has two.
    public var resourceCount: Int { variant == .lockOrderInversion ? 2 : 1 }

    public func makeState(threads: Int) -> State {
        State(accounts: accounts, initialBalance: initialBalance, resources: resourceCount, threads: threads)
    }

    public func operations() -> [StressOperation<State>] {
        if variant == .lockOrderInversion { return branchOperations() }
        let audit = StressOperation<State>("audit", weight: auditRatio, steps: [
            .read("scan") { state, _ in
                state.audit(expected: state.expectedTotal, when: "audit found").map { .violation($0) } ?? .next
            },
        ])
        let transferAccess: Step<State>.Access = variant == .nestedTransaction ? .nestedWrite(outer: 0, inner: 0) : .write(0)
        return [
            // The nested-transaction variant re-enters the bank's own lock from
            // inside the transfer, as a transfer that calls the public, locking
            // `balance(of:)` would: fine for a recursive lock or an actor, a
            // deadlock (or a libdispatch trap) for everything else.
            StressOperation("transfer", weight: transferRatio, steps: [chooseTransfer(), Step("move", access: transferAccess, body: Self.move)]),
            StressOperation("deposit", weight: depositRatio, steps: depositSteps()),
            StressOperation("withdraw", weight: withdrawRatio, steps: withdrawSteps()),
            StressOperation("close", weight: closeRatio, steps: [chooseAccount(), .write("close", Self.close)]),
            StressOperation("reopen", weight: closeRatio, steps: [chooseAccount(), .write("reopen", reopen())]),
            audit,
        ]
    }

    // MARK: - Steps

    /// Picks two different accounts (r0 from, r1 to) and an amount (r2), each
    /// account within `range`s when given (the two branches).
    private func chooseTransfer(from: Range<Int>? = nil, to: Range<Int>? = nil) -> Step<State> {
        let maxTransfer = self.maxTransfer
        return .unguarded("choose") { state, frame in
            if let from, let to {
                frame.r0 = from.lowerBound + frame.random.next(below: from.count)
                frame.r1 = to.lowerBound + frame.random.next(below: to.count)
            } else {
                frame.r0 = frame.random.next(below: state.count)
                frame.r1 = (frame.r0 + 1 + frame.random.next(below: state.count - 1)) % state.count
            }
            frame.r2 = 1 + frame.random.next(below: maxTransfer)
            return .next
        }
    }

    /// Picks an account (r0) and an amount (r2).
    private func chooseAccount() -> Step<State> {
        let maxTransfer = self.maxTransfer
        return .unguarded("choose") { state, frame in
            frame.r0 = frame.random.next(below: state.count)
            frame.r2 = 1 + frame.random.next(below: maxTransfer)
            return .next
        }
    }

    /// Moves r2 from account r0 to r1 if both are open and r0 has enough.
    private static func move(_ state: State, _ frame: inout OpFrame) -> StepResult {
        let from = frame.r0, to = frame.r1, amount = frame.r2
        guard state.closed[from] == 0, state.closed[to] == 0, state.balances[from] >= amount else { return .finish }
        state.balances[from] &-= amount
        // Between the debit and the credit the money is nowhere: a fuzz point
        // here lets another worker's audit see that wherever the section is
        // not really exclusive (the unsynchronized control), whatever the load
        // on the machine; where it is, the pause changes nothing.
        frame.fuzzPoint()
        state.balances[to] &+= amount
        let left = state.balances[from]
        return left >= 0 ? .next : .violation("no overdraft: transferring \(amount) left account \(from) at \(left)")
    }

    private func depositSteps() -> [Step<State>] {
        guard variant == .lostUpdate else {
            return [chooseAccount(), .write("deposit") { state, frame in
                guard state.closed[frame.r0] == 0 else { return .finish }
                state.balances[frame.r0] &+= frame.r2
                Self.book(state, frame, in: frame.r2)
                return .next
            }]
        }
        // The lost update: read in one critical section, write back in the next.
        return [
            chooseAccount(),
            .read("read-balance") { state, frame in
                guard state.closed[frame.r0] == 0 else { return .finish }
                frame.r1 = state.balances[frame.r0]
                return .next
            },
            .write("store-balance") { state, frame in
                state.balances[frame.r0] = frame.r1 &+ frame.r2
                Self.book(state, frame, in: frame.r2)
                return .next
            },
        ]
    }

    private func withdrawSteps() -> [Step<State>] {
        guard variant == .checkThenAct else {
            return [chooseAccount(), .write("withdraw") { state, frame in
                guard state.closed[frame.r0] == 0, state.balances[frame.r0] >= frame.r2 else { return .finish }
                return Self.debit(state, frame)
            }]
        }
        // Check-then-act: the check's critical section ends before the debit's begins.
        return [
            chooseAccount(),
            .read("check") { state, frame in
                state.closed[frame.r0] == 0 && state.balances[frame.r0] >= frame.r2 ? .next : .finish
            },
            .write("debit") { state, frame in Self.debit(state, frame) },
        ]
    }

    /// Takes r2 out of account r0 and checks it did not go below zero.
    private static func debit(_ state: State, _ frame: OpFrame) -> StepResult {
        let account = frame.r0, amount = frame.r2
        state.balances[account] &-= amount
        book(state, frame, out: amount)
        let left = state.balances[account]
        return left >= 0 ? .next : .violation("no overdraft: withdrawing \(amount) left account \(account) at \(left)")
    }

    /// Closes account r0, paying its balance out.
    private static func close(_ state: State, _ frame: inout OpFrame) -> StepResult {
        let account = frame.r0
        guard state.closed[account] == 0 else { return .finish }
        let payout = state.balances[account]
        state.balances[account] = 0
        state.closed[account] = 1
        book(state, frame, out: payout)
        return payout >= 0 ? .next : .violation("no overdraft: account \(account) closed at \(payout)")
    }

    /// Reopens the first closed account among up to 64 from r0, with an opening deposit.
    private func reopen() -> @Sendable (State, inout OpFrame) -> StepResult {
        let opening = initialBalance
        return { state, frame in
            for i in 0..<min(64, state.count) {
                let account = (frame.r0 + i) % state.count
                guard state.closed[account] != 0 else { continue }
                let held = state.balances[account]
                state.closed[account] = 0
                state.balances[account] &+= opening
                Self.book(state, frame, in: opening)
                return held == 0 ? .next : .violation("closed accounts hold nothing: reopening account \(account) found \(held) in it")
            }
            return .finish
        }
    }

    /// Records money moved in or out, in the ledger audits use and in the worker's own flow.
    @inline(__always)
    private static func book(_ state: State, _ frame: OpFrame, in moneyIn: Int = 0, out moneyOut: Int = 0) {
        state.ledger[0] &+= moneyIn &- moneyOut
        let flow = state.flows[frame.thread]
        flow.pointee.moneyIn &+= moneyIn
        flow.pointee.moneyOut &+= moneyOut
    }

    /// The lock-order-inversion bank: accounts split into two branches, one
    /// resource each; transfers cross branches taking the source branch first.
    private func branchOperations() -> [StressOperation<State>] {
        let half = accounts / 2
        let first = 0..<half, second = half..<accounts
        let transferWeight = (1 - auditRatio) / 2
        return [
            StressOperation("transfer-out", weight: transferWeight, steps: [
                chooseTransfer(from: first, to: second),
                .nestedWrite("move", outer: 0, inner: 1, Self.holdingBothBranches(Self.move)),
            ]),
            StressOperation("transfer-in", weight: transferWeight, steps: [
                chooseTransfer(from: second, to: first),
                .nestedWrite("move", outer: 1, inner: 0, Self.holdingBothBranches(Self.move)),
            ]),
            // An audit needs both branches at once; it takes them in a fixed order.
            StressOperation("audit", weight: auditRatio, steps: [
                .nestedWrite("scan", outer: 0, inner: 1, Self.holdingBothBranches { state, _ in
                    state.audit(expected: state.expectedTotal, when: "audit found").map { .violation($0) } ?? .next
                }),
            ]),
        ]
    }

    /// Wraps a body that needs both branches to itself with a check that it has
    /// them: an atomic count of the bodies inside, which must be 1. Locks held in
    /// a nest guarantee it (when they do not deadlock); a nested actor call does
    /// not, because the outer actor runs other work while the inner one runs this
    /// body, so the check sees the lost atomicity directly, not only through the
    /// totals it damages.
    private static func holdingBothBranches(
        _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) -> @Sendable (State, inout OpFrame) -> StepResult {
        { state, frame in
            let others = state.branchOccupancy.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
            // Inside the window that must be exclusive: a worker the fuzzer
            // holds here (on one CPU, a yield to the other pool thread) is
            // where a broken nest shows as an overlap.
            frame.fuzzPoint()
            let result = body(state, &frame)
            state.branchOccupancy.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            guard others == 0 else {
                return .violation("atomicity: an operation that holds both branches overlapped \(others) other(s) holding them")
            }
            return result
        }
    }

    // MARK: - Final checks

    /// The balances, for up to 8 accounts (more would not fit a trace's column).
    public func describe(_ state: State) -> String? {
        guard state.count <= 8 else { return nil }
        return "balances " + (0..<state.count).map { state.closed[$0] != 0 ? "closed" : String(state.balances[$0]) }.joined(separator: " ")
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        var moneyIn = 0, moneyOut = 0
        for t in 0..<state.threads {
            moneyIn &+= state.flows[t].pointee.moneyIn
            moneyOut &+= state.flows[t].pointee.moneyOut
        }
        var broken: [String] = []
        let expected = state.total &+ moneyIn &- moneyOut
        if let problem = state.audit(expected: expected, when: "after the run") {
            broken.append(problem + " (initial \(state.total) + deposits \(moneyIn) − withdrawals and close-outs \(moneyOut))")
        }
        if state.expectedTotal != expected {
            broken.append("conservation: the bank's running ledger says \(state.expectedTotal) but the workers' own deposits and withdrawals say \(expected)")
        }
        return broken
    }

    public func metrics(_ state: State) -> [String: Double] {
        var closedAccounts = 0
        for i in 0..<state.count where state.closed[i] != 0 { closedAccounts += 1 }
        return ["closed_accounts": Double(closedAccounts)]
    }
}
