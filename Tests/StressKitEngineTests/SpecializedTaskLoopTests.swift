@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The measured task loop compiled for each isolating strategy's type
/// (``_MeasuredTaskLoop``: one operation of one read or write step, fuzzing
/// off) must book what the general task path books: the same operations, the
/// same site words seen inside the step, the same violations with their
/// operation, step and op number, and the same timed figures.
final class SpecializedTaskLoopTests: XCTestCase {
    /// (`main-actor` needs the trial process's main thread, which an
    /// in-process run in a test does not have to give.)
    private let actors = ["actor", "global-actor"]

    /// `fuzz: off` takes the specialized loop and `fuzz: light` the general
    /// path; both must book the tenth of violations at the same op numbers,
    /// and time every operation with `sample: 1`. The step itself checks that
    /// its registers were reset and that the watchdog's word says the worker
    /// is inside the step's section (EveryNthViolationWorkload).
    func testTheTaskLoopBooksWhatTheGeneralTaskPathBooks() throws {
        var registry = StressRegistry.builtIn
        registry.register(workload: EveryNthViolationWorkload.self)
        for (access, fuzz, sample) in ["write", "read"].flatMap({ a in ["off", "light"].flatMap { f in ["1", "100", "auto"].map { (a, f, $0) } } }) {
            let report = try PlanRunner.run(yaml: """
                experiments:
                  - workload: every-nth-violation
                    parameters: { every: 997, one_step: true, access: \(access) }
                    strategies: [\(actors.joined(separator: ", "))]
                    threads: 1
                    ops: 9970
                    warmup: 0s
                    fuzz: \(fuzz)
                    timing: {sample: \(sample)}
                """, file: "test.yaml", registry: registry)
            XCTAssertEqual(report.trials.count, actors.count)
            for t in report.trials {
                let label = "\(t.trial.id) access \(access) fuzz \(fuzz) sample \(sample)"
                XCTAssertEqual(t.outcome, .violated, label)
                XCTAssertEqual(t.violations.count, 10, label)
                let first = try XCTUnwrap(t.violations.samples.first, label)
                XCTAssertEqual(first.operation, "op", label)
                XCTAssertEqual(first.step, "only", label)
                XCTAssertEqual(first.message, "op 996", label)
                XCTAssertEqual(Array(t.violations.samples.map(\.opNumber).prefix(3)), [996, 1993, 2990], label)
                let m = try XCTUnwrap(t.measurement, label)
                XCTAssertEqual(m.totalOps, 9970, label)
                XCTAssertEqual(m.operations, ["op": 9970], label)
                if sample == "1" {
                    XCTAssertEqual(m.latency?.count, 9970, label)
                    XCTAssertEqual(m.acquireLatency?.count, 9970, "every timed operation waited for its actor: \(label)")
                }
            }
        }
    }

    /// The counter under each actor strategy, several workers, both stop
    /// conditions: the final check compares the counter with the increments
    /// counted, so a lost or double-counted operation of the loop fails it.
    func testTheCounterComesOutExactUnderEveryActorStrategy() throws {
        let report = try TestSupport.runInProcess("""
            defaults: { warmup: 10ms, seed: 3 }
            experiments:
              - name: ops
                workload: counter
                strategies: [\(actors.joined(separator: ", "))]
                threads: [1, 4]
                ops: 5000
              - name: timed
                workload: counter
                strategies: [\(actors.joined(separator: ", "))]
                threads: [4]
                duration: 100ms
            """)
        XCTAssertEqual(report.trials.count, 3 * actors.count)
        for t in report.trials {
            XCTAssertEqual(t.outcome, .passed, WorkloadTestSupport.describe(t))
            let m = try XCTUnwrap(t.measurement, t.trial.id)
            XCTAssertGreaterThan(m.totalOps, 0, t.trial.id)
            if t.trial.experiment == "ops" { XCTAssertEqual(m.totalOps, 5000 * t.trial.threads, t.trial.id) }
        }
    }
}
