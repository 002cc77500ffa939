/// A bank account as a team writes it with Swift concurrency: an actor whose
/// `withdraw` checks the balance, awaits an authorization (a network call),
/// then debits. The actor serializes its code, but it is reentrant: while one
/// withdrawal waits for its authorization, another runs the same check on
/// the same balance, and both debit. That overdraft is the bug; the two
/// usual fixes re-check after the `await`, or reserve the amount before it.
public actor BankAccount {
    /// How `withdraw` protects itself across its `await`.
    public enum Guarding: String, Sendable {
        /// It does not: the check before the `await` is trusted after it.
        case checkBeforeAwaitOnly
        /// The balance is checked again once the authorization is back.
        case recheckAfterAwait
        /// The amount is reserved before the `await` and settled after it.
        case reserveBeforeAwait
    }

    /// Money on the account.
    public private(set) var balance: Int
    /// Money reserved by withdrawals waiting for their authorization.
    private var reserved = 0
    private let guarding: Guarding
    private let authorizer: PaymentAuthorizer

    /// An account holding `balance`, authorizing through `authorizer`.
    public init(balance: Int, guarding: Guarding, authorizer: PaymentAuthorizer) {
        self.balance = balance
        self.guarding = guarding
        self.authorizer = authorizer
    }

    /// Takes `amount` out if the account covers it; false if it does not.
    public func withdraw(_ amount: Int) async -> Bool {
        switch guarding {
        case .checkBeforeAwaitOnly:
            guard balance >= amount else { return false }
            await authorizer.authorize(amount)
            balance -= amount
        case .recheckAfterAwait:
            guard balance >= amount else { return false }
            await authorizer.authorize(amount)
            guard balance >= amount else { return false }
            balance -= amount
        case .reserveBeforeAwait:
            guard balance - reserved >= amount else { return false }
            reserved += amount
            await authorizer.authorize(amount)
            reserved -= amount
            balance -= amount
        }
        return true
    }

    /// Puts `amount` in.
    public func deposit(_ amount: Int) {
        balance += amount
    }
}

/// The payment network: an authorization takes a while (a `Task.sleep`
/// standing in for the round trip), during which the account actor is free.
public actor PaymentAuthorizer {
    private let latency: Duration
    /// Authorizations granted.
    public private(set) var granted = 0

    /// A network whose round trip takes `latency`.
    public init(latency: Duration) { self.latency = latency }

    /// Authorizes a payment of `amount` (always granted, after the round trip).
    public func authorize(_ amount: Int) async {
        try? await Task.sleep(for: latency)
        granted += 1
    }
}
