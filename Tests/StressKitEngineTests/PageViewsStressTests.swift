import StressKit
import XCTest

/// The type under test, as a team would write it for its own code: page-view
/// counts and their total, in raw memory. Views bump a page and the total in one
/// critical section; reports check the pages add up to the total.
struct PageViewsWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "page-views",
        summary: "per-page view counts and a total; the total is always the sum of the pages",
        parameters: [.integer("pages", "number of pages", default: 16, range: 1...10_000)]
    )

    /// `views[0]` is the total, `views[1...pages]` the pages. `@unchecked
    /// Sendable` because the strategy under test is what keeps it safe; without
    /// one, races give wrong counts, which the checks report.
    final class State: @unchecked Sendable {
        let views: UnsafeMutablePointer<Int>
        let pages: Int

        init(pages: Int) {
            self.pages = pages
            views = .allocate(capacity: pages + 1)
            views.initialize(repeating: 0, count: pages + 1)
        }

        deinit { views.deallocate() }
    }

    let pages: Int

    init(parameters: WorkloadParameters) throws {
        pages = try parameters.integer("pages")
    }

    func makeState(threads: Int) -> State { State(pages: pages) }

    // `StressOperation` keeps its name in a file that imports XCTest (and so
    // Foundation, whose `Operation` is NSOperation).
    func operations() -> [StressOperation<State>] {
        [
            StressOperation("view", weight: 0.9, steps: [
                .write("count") { state, frame in
                    state.views[1 + frame.random.next(below: state.pages)] += 1
                    state.views[0] += 1
                    return .next
                },
            ]),
            StressOperation("report", weight: 0.1, steps: [
                .read("sum") { state, _ in
                    let sum = (1...state.pages).reduce(0) { $0 + state.views[$1] }
                    return sum == state.views[0] ? .next : .violation("pages add up to \(sum) but the total is \(state.views[0])")
                },
            ]),
        ]
    }

    func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        let views = totals.count(of: "view")
        return state.views[0] == views ? [] : ["total \(state.views[0]) after \(views) views"]
    }
}

final class PageViewsStressTests: XCTestCase {
    /// The built-in workloads and strategies, plus ours.
    private var registry: StressRegistry {
        var registry = StressRegistry.builtIn
        registry.register(workload: PageViewsWorkload.self)
        return registry
    }

    /// A plan given as a string, run in this process.
    func testPageViewsUnderEverySynchronizingStrategy() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: page-views
                parameters: { pages: 8 }
                strategies: [pthread-mutex, nslock, serial-queue, rw-queue, actor]
                threads: [1, 4]
                ops: 5000
                warmup: 0s
            """, registry: registry)
        XCTAssertEqual(report.trials.count, 10)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, "\(trial.trial.id): \(trial.violations.samples.map(\.summaryLine))")
            XCTAssertEqual(trial.measurement?.totalOps, 5000 * trial.trial.threads)
        }
        XCTAssertEqual(report.exitCode, .passed)
    }

    /// A plan file kept next to the tests.
    func testPageViewsPlanFile() throws {
        let plan = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("page-views.yaml")
        let report = try PlanRunner.run(file: plan.path, registry: registry)
        XCTAssertFalse(report.trials.isEmpty)
        XCTAssertEqual(report.exitCode, .passed, report.trials.map { "\($0.trial.id): \($0.outcome)" }.joined(separator: ", "))
    }
}
