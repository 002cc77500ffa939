import StressKit

/// The workload that tests ``BankAccount`` as written: workers withdraw and
/// deposit through `await`, and after every withdrawal read the balance,
/// which must never be negative.
public struct BankAccountWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "bank-account",
        summary: "an actor that checks, awaits an authorization, then debits (Examples/Async)",
        parameters: [
            .choice("variant", "correct, or overdraft: withdraw trusts the check it made before its await",
                    default: "correct", choices: ["correct", "overdraft"]),
            .choice("fix", "how the correct variant guards its await: recheck (after it) or reserve (before it)",
                    default: "recheck", choices: ["recheck", "reserve"]),
            .integer("latency_us", "the authorization's round trip, in microseconds (a Task.sleep)", default: 50, range: 0...1_000_000),
        ]
    )

    let guarding: BankAccount.Guarding
    let latency: Duration

    public init(parameters: WorkloadParameters) throws {
        if try parameters.text("variant") == "overdraft" {
            guarding = .checkBeforeAwaitOnly
        } else {
            guarding = try parameters.text("fix") == "reserve" ? .reserveBeforeAwait : .recheckAfterAwait
        }
        latency = .microseconds(try parameters.integer("latency_us"))
    }

    /// The account under test.
    public final class State: Sendable {
        let account: BankAccount

        init(_ account: BankAccount) { self.account = account }
    }

    public func makeState(threads: Int) -> State {
        State(BankAccount(balance: 100, guarding: guarding, authorizer: PaymentAuthorizer(latency: latency)))
    }

    public func operations() -> [StressOperation<State>] {
        [
            StressOperation("withdraw", weight: 0.5, steps: [
                .awaiting("withdraw") { state, frame in
                    let amount = 50 + frame.random.next(below: 51)
                    guard await state.account.withdraw(amount) else { return .next }
                    let balance = await state.account.balance
                    return balance >= 0 ? .next
                        : .violation("overdraft: the balance is \(balance) after withdrawing \(amount) "
                                     + "(the check before the await no longer held after it)")
                },
            ]),
            StressOperation("deposit", weight: 0.5, steps: [
                .awaiting("deposit") { state, frame in
                    // Smaller than withdrawals: the balance stays near the
                    // edge where two withdrawals' checks can both pass.
                    await state.account.deposit(20 + frame.random.next(below: 31))
                    return .next
                },
            ]),
        ]
    }
}
