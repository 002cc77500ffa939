import StressKit
import XCTest

/// A workload whose second step reports a violation on every `every`-th
/// operation a worker starts: a violation at a known operation and step, with
/// no race involved, so the tests below know exactly what must be booked.
struct EveryNthViolationWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "every-nth-violation",
        summary: "two steps; the second reports a violation on every n-th operation",
        parameters: [.integer("every", "operations between two violations", default: 1000, range: 1...1_000_000)]
    )

    final class State: Sendable {}

    let every: Int

    init(parameters: WorkloadParameters) throws {
        every = try parameters.integer("every")
    }

    func makeState(threads: Int) -> State { State() }

    func operations() -> [WorkloadOperation] {
        let every = self.every
        return [
            WorkloadOperation("op", weight: 1, steps: [
                .read("first") { _, frame in
                    frame.r0 = frame.opNumber
                    return .next
                },
                .write("second") { _, frame in
                    // The register still holds what the first step put there.
                    guard frame.r0 == frame.opNumber else { return .violation("register lost: \(frame.r0)") }
                    return (frame.opNumber + 1) % every == 0 ? .violation("op \(frame.opNumber)") : .next
                },
            ]),
        ]
    }

    func finalCheck(_ state: State, _ totals: RunTotals) -> [String] { [] }
}

/// The measured loop compiled for each strategy's type (used when fuzzing is
/// off) must run exactly what the general loop runs: the same operations from
/// the same seed, the same registers, the same violations booked with the same
/// operation, step and op number.
final class SpecializedLoopTests: XCTestCase {
    private let locks = ["pthread-mutex", "mutex", "nslock", "rwlock", "synchronized", "serial-queue", "unsynchronized"]

    /// With fuzzing on the engine takes the general loop; with it off, the
    /// specialized one. One worker and a fixed seed: the operation mix must
    /// come out the same, count for count.
    func testSpecializedLoopRunsTheSameOperationsAsTheGeneralLoop() throws {
        func counts(fuzz: String) throws -> [String: [String: Int]] {
            let report = try TestSupport.runInProcess("""
                defaults: { threads: 1, ops: 20000, warmup: 0s, seed: 7, timing: {sample: 16} }
                experiments:
                  - workload: counter
                    parameters: { read_ratio: 0.4, variant: split-rmw }
                    strategies: [\(locks.joined(separator: ", "))]
                    fuzz: \(fuzz)
                """)
            var byStrategy: [String: [String: Int]] = [:]
            for t in report.trials {
                XCTAssertEqual(t.outcome, .passed, t.trial.id)
                byStrategy[t.trial.strategy] = try XCTUnwrap(t.measurement, t.trial.id).operations
            }
            return byStrategy
        }
        let general = try counts(fuzz: "light")
        let specialized = try counts(fuzz: "off")
        XCTAssertEqual(Set(specialized.keys), Set(locks))
        for lock in locks {
            XCTAssertEqual(specialized[lock], general[lock], lock)
            XCTAssertEqual(specialized[lock]?.values.reduce(0, +), 20000, lock)
        }
    }

    /// Violations found in the specialized loop's batches are booked as the
    /// general loop books them: each one, with its operation, step and op number.
    func testSpecializedLoopBooksEveryViolationWithItsSite() throws {
        var registry = StressRegistry.builtIn
        registry.register(workload: EveryNthViolationWorkload.self)
        for sample in ["1", "100", "auto"] {
            let report = try PlanRunner.run(yaml: """
                experiments:
                  - workload: every-nth-violation
                    parameters: { every: 997 }
                    strategies: [\(locks.joined(separator: ", "))]
                    threads: 1
                    ops: 9970
                    warmup: 0s
                    timing: {sample: \(sample)}
                """, file: "test.yaml", registry: registry)
            for t in report.trials {
                XCTAssertEqual(t.outcome, .violated, t.trial.id)
                XCTAssertEqual(t.violations.count, 10, t.trial.id)
                let first = try XCTUnwrap(t.violations.samples.first, t.trial.id)
                XCTAssertEqual(first.operation, "op", t.trial.id)
                XCTAssertEqual(first.step, "second", t.trial.id)
                XCTAssertEqual(first.opNumber, 996, t.trial.id)
                XCTAssertEqual(first.message, "op 996", t.trial.id)
                XCTAssertEqual(Array(t.violations.samples.map(\.opNumber).prefix(3)), [996, 1993, 2990], t.trial.id)
                XCTAssertEqual(try XCTUnwrap(t.measurement, t.trial.id).totalOps, 9970, t.trial.id)
            }
        }
    }
}
