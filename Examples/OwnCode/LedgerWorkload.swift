import StressKit

/// The workload that tests ``Ledger``, a class with plain Foundation locks
/// (or pthread read-write locks) that is not changed at all: plans run it
/// with `interpose: true`. Invariant: cash minus sales stays what it started as.
public struct LedgerWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "ledger",
        summary: "your own code unchanged: two plain Foundation or pthread locks, seen through interpose: true (Examples/OwnCode)",
        parameters: [
            .choice("variant", "correct, or lock-order: settle takes the two locks in the other order",
                    default: "correct", choices: ["correct", "lock-order"]),
            .choice("locks", "what guards the two books: " + Ledger.Locks.allCases.map(\.rawValue).joined(separator: ", "),
                    default: "nslock", choices: Ledger.Locks.allCases.map(\.rawValue)),
            .flag("named", "the ledger names its locks for stall reports (ledger.cash, ledger.sales)", default: false),
        ]
    )

    let invertedOrder: Bool
    let locks: Ledger.Locks
    let named: Bool

    public init(parameters: WorkloadParameters) throws {
        invertedOrder = try parameters.text("variant") == "lock-order"
        locks = Ledger.Locks(rawValue: try parameters.text("locks")) ?? .nslock
        named = try parameters.flag("named")
    }

    public func makeState(threads: Int) -> Ledger { Ledger(invertedOrder: invertedOrder, locks: locks, named: named) }

    public func operations() -> [StressOperation<Ledger>] {
        [
            StressOperation("post", weight: 0.45, steps: [
                .unguarded("post") { ledger, frame in
                    ledger.post(1 + frame.random.next(below: 100))
                    return .next
                },
            ]),
            StressOperation("settle", weight: 0.45, steps: [
                .unguarded("settle") { ledger, frame in
                    ledger.settle(1 + frame.random.next(below: 100))
                    return .next
                },
            ]),
            StressOperation("audit", weight: 0.1, steps: [
                .unguarded("audit") { ledger, _ in
                    let balance = ledger.audit()
                    return balance == 1_000 ? .next : .violation("cash minus sales is \(balance), not 1000")
                },
            ]),
        ]
    }

    public func finalCheck(_ ledger: Ledger, _ totals: RunTotals) -> [String] {
        ledger.balance == 1_000 ? [] : ["after the run cash minus sales is \(ledger.balance), not 1000"]
    }
}
