import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// What a result says about where it was measured: the cores a process may
/// use as well as the cores online, the warning a pinned run of actors gets,
/// and the note a comparison with a baseline from another environment carries.
final class EnvironmentInfoTests: XCTestCase {
    private func environment(cores: Int, usable: Int?) -> EnvironmentInfo {
        EnvironmentInfo(os: "os", cpu: "cpu", cores: cores, usableCores: usable, swiftVersion: "6.3",
                        buildConfiguration: "debug", toolVersion: StressKitVersion.current)
    }

    func testUsableCoresAreReadFromTheAffinityMaskOnLinux() throws {
        #if os(Linux)
        let env = EnvironmentInfo.current
        let usable = try XCTUnwrap(env.usableCores, "Linux can say which cores a process may use")
        XCTAssertTrue((1...env.cores).contains(usable), "\(usable) usable of \(env.cores)")
        #else
        throw XCTSkip("the affinity mask is read on Linux only")
        #endif
    }

    func testCoresDescriptionSaysWhenTheProcessIsPinned() {
        XCTAssertEqual(environment(cores: 2, usable: 1).coresDescription, "2 cores (1 usable by this process)")
        XCTAssertEqual(environment(cores: 2, usable: 2).coresDescription, "2 cores")
        XCTAssertEqual(environment(cores: 8, usable: nil).coresDescription, "8 cores", "unknown: no claim about it")
        XCTAssertEqual(environment(cores: 2, usable: 4).coresDescription, "2 cores", "not a pinned run, whatever it is")
    }

    func testPoolWarningIsForTaskStrategiesOnOneUsableCoreOnly() throws {
        let message = try XCTUnwrap(environment(cores: 2, usable: 1).cooperativePoolWarning(taskStrategies: ["actor", "global-actor"]))
        XCTAssertTrue(message.hasPrefix("warning: this process may run on 1 of 2 cores"), message)
        XCTAssertTrue(message.contains("under actor, global-actor the workers take turns"), message)
        XCTAssertNil(environment(cores: 2, usable: 1).cooperativePoolWarning(taskStrategies: []), "no actors: nothing to warn about")
        XCTAssertNil(environment(cores: 2, usable: 2).cooperativePoolWarning(taskStrategies: ["actor"]))
        XCTAssertNil(environment(cores: 2, usable: nil).cooperativePoolWarning(taskStrategies: ["actor"]), "unknown is not one")
        let single = try XCTUnwrap(environment(cores: 1, usable: 1).cooperativePoolWarning(taskStrategies: ["actor"]))
        XCTAssertTrue(single.hasPrefix("warning: this machine has 1 core, so Swift's cooperative pool has one thread"), single)
    }

    func testDifferencesNameWhatMovesFiguresAndNotWhatIsUnknown() {
        var old = environment(cores: 4, usable: 4), new = environment(cores: 2, usable: nil)
        old.swiftVersion = "6.2"
        new.cpu = "unavailable"
        XCTAssertEqual(new.differences(from: old), [
            "cores online: 4 in the baseline, 2 here",
            "Swift: 6.2 in the baseline, 6.3 here",
        ], "an unknown CPU model or usable count is no difference")
        XCTAssertEqual(new.differences(from: new), [], "the same environment")
        var otherKernel = new
        otherKernel.os = "another kernel"
        otherKernel.toolVersion = "9.9.9"
        XCTAssertEqual(otherKernel.differences(from: new), [], "an OS line or tool version alone is not reported")
    }

    func testRecordsWrittenBeforeUsableCoresStillRead() throws {
        let old = #"{"os":"os","cpu":"cpu","cores":2,"swiftVersion":"6.3","buildConfiguration":"release","toolVersion":"0.1.0"}"#
        let env = try ResultCoding.decoder().decode(EnvironmentInfo.self, from: Data(old.utf8))
        XCTAssertNil(env.usableCores, "absent means unknown, never a made-up count")
        let written = String(decoding: try ResultCoding.encoder().encode(env), as: UTF8.self)
        XCTAssertFalse(written.contains("usableCores"), "unknown stays absent when written back: \(written)")
    }

    /// A baseline from another machine or build is still compared (verdicts
    /// unchanged), but every report says what differs, so a "regression" of a
    /// debug build against a release baseline does not send anyone hunting
    /// through the code.
    func testABaselineFromAnotherEnvironmentIsNamedInEveryReport() throws {
        var here = EnvironmentInfo.current
        here.cpu = "CPU A"
        here.buildConfiguration = "debug"
        here.usableCores = 1
        // Each trial records the environment its own process ran in: here.
        let cell = Synthetic.latencyCell([1000, 1010, 990, 1005, 995]).map { t -> TrialResult in
            var t = t
            t.environment = here
            return t
        }
        var there = EnvironmentInfo.current
        there.buildConfiguration = "release"
        there.usableCores = 2
        there.cpu = "CPU B"
        var baseline = Synthetic.report(cell)
        baseline.environment = there
        var report = Synthetic.report(cell)
        report.environment = here
        report.gate = GateReport.evaluate(cell, policy: GatePolicy(), baseline: baseline, environment: here)
        let comparison = try XCTUnwrap(report.gate?.comparison)
        XCTAssertEqual(comparison.environmentDifferences, [
            "CPU: CPU B in the baseline, CPU A here",
            "cores usable by the process: 2 in the baseline, 1 here",
            "build: release in the baseline, debug here",
        ])
        XCTAssertEqual(comparison.cells.map(\.verdict), [.unchanged], "the verdict is the data's")
        let text = GateSummary.render(report.gate, planFile: "p.yaml")
        XCTAssertTrue(text.contains("note: the baseline was measured in another environment (CPU: CPU B in the baseline, CPU A here; "), text)
        XCTAssertTrue(text.contains("build: release in the baseline, debug here): a change may come from that rather than from the code"), text)
        XCTAssertTrue(MarkdownReport.render(report).contains("**Note:** the baseline was measured in another environment"))
        let decoded = try ResultCoding.decoder().decode(RunReport.self, from: ResultCoding.encoder().encode(report))
        XCTAssertEqual(decoded.gate?.comparison?.environmentDifferences, comparison.environmentDifferences)

        // Same environment, or a count one side does not know: nothing to say.
        baseline.environment = here
        baseline.environment.usableCores = nil
        report.gate = GateReport.evaluate(cell, policy: GatePolicy(), baseline: baseline, environment: here)
        XCTAssertNil(report.gate?.comparison?.environmentDifferences)
        XCTAssertFalse(GateSummary.render(report.gate, planFile: "p.yaml").contains("note:"))
    }
}
