import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A run pinned to one CPU with `taskset`, as a CI runner or container
/// might pin it: what its records and warnings say.
final class PinnedRunTests: XCTestCase {
    /// The run as a pinned CI runner or container would make it: the record
    /// says 1 usable core, and a plan with an actor strategy gets the warning.
    func testPinnedRunRecordsOneUsableCoreAndWarnsAboutActors() throws {
        #if os(Linux)
        let taskset = "/usr/bin/taskset"
        guard FileManager.default.isExecutableFile(atPath: taskset),
              (try? TestSupport.cli(["--version"], launcher: [taskset, "-c", "0"]))?.status == 0 else {
            throw XCTSkip("needs taskset (util-linux) and CPU 0 in this process's affinity mask")
        }
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("plan.yaml").path, json = dir.appendingPathComponent("r.json").path
        try """
            experiments:
              - workload: counter
                strategies: [actor, mutex]
                threads: 2
                ops: 200
                warmup: 0s
                deadlock_after: 30s
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let pinned = try TestSupport.cli(["run", plan, "--json", json, "-q"], launcher: [taskset, "-c", "0"])
        XCTAssertEqual(pinned.status, 0, pinned.stderr)
        XCTAssertTrue(pinned.stderr.contains("so Swift's cooperative pool has one thread: under actor the workers take turns"), pinned.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertEqual(report.environment.usableCores, 1)
        XCTAssertEqual(report.trials.map(\.environment.usableCores), [1, 1], "each trial's child process inherits the mask")
        let alone = dir.appendingPathComponent("alone.yaml").path
        try "experiments:\n  - workload: counter\n    strategies: [actor]\n    threads: 1\n    ops: 200\n    warmup: 0s\n"
            .write(toFile: alone, atomically: true, encoding: .utf8)
        let one = try TestSupport.cli(["run", alone, "-q"], launcher: [taskset, "-c", "0"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertFalse(one.stderr.contains("cooperative pool"), "one worker runs alone on any pool: \(one.stderr)")
        guard (EnvironmentInfo.current.usableCores ?? 1) > 1 else { return }
        let free = try TestSupport.cli(["run", plan, "-q"])
        XCTAssertEqual(free.status, 0, free.stderr)
        XCTAssertFalse(free.stderr.contains("cooperative pool"), free.stderr)
        #else
        throw XCTSkip("taskset is Linux's")
        #endif
    }
}
