import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A real quota: a trial process in a control group allowed 0.3 cores records
/// the quota and the periods it was stopped in. Needs a writable CPU
/// controller (root, control groups mounted read-write); skipped otherwise.
final class ControlGroupQuotaRunTests: XCTestCase {
    func testATrialUnderAQuotaRecordsItAndSaysItWasThrottled() throws {
        #if os(Linux)
        guard let group = QuotaGroup(cores: 0.3) else {
            throw XCTSkip("needs a writable CPU controller (root, cgroup v1 `cpu` or v2 with `cpu` in the root's subtree_control)")
        }
        defer { XCTAssertTrue(group.remove(), "the test's control group \(group.procs) is left behind: rmdir it") }
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("plan.yaml").path, json = dir.appendingPathComponent("r.json").path
        // Two busy workers against 0.3 cores: the group uses its quota up
        // early in every 100 ms period, so every period of the 600 ms window
        // is throttled. That needs the group to get more than 0.3 cores when
        // it runs: the weight `QuotaGroup` gives it sees to that on a loaded
        // machine too.
        try """
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 2
                duration: 600ms
                warmup: 0s
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let run = try TestSupport.cli(["run", plan, "--json", json], launcher: ["/bin/sh", "-c", "echo $$ > '\(group.procs)' && exec \"$@\"", "sh"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("CPU quota: the trial process's control group (quota 0.3 cores) was throttled during 1 of 1 trial(s)"), run.stdout)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertEqual(report.environment.cpuQuota, .cores(0.3))
        let usage = try XCTUnwrap(report.trials.first?.measurement?.resources)
        XCTAssertEqual(report.trials.first?.environment.cpuQuota, .cores(0.3), "the trial's child process is in the group too")
        // The cores the trial process used over the window: a figure well
        // under 0.3 means the group never reached its quota, so nothing was
        // there to throttle (the weight did not win it enough CPU).
        let window = try XCTUnwrap(report.trials.first?.measurement?.elapsedNanoseconds)
        let used = "the trial used \(Double(usage.userCpuNs + usage.systemCpuNs) / Double(max(window, 1))) cores over the window"
        XCTAssertGreaterThan(try XCTUnwrap(usage.quotaPeriods), 0, used)
        XCTAssertGreaterThan(try XCTUnwrap(usage.throttledPeriods), 0, used)
        XCTAssertGreaterThan(try XCTUnwrap(usage.throttledNs), 0, used)
        #else
        throw XCTSkip("control groups are Linux's")
        #endif
    }
}

/// A control group of this test's own with a CPU quota, removed afterwards.
private struct QuotaGroup {
    /// The file a process's id is written to, to move it into the group.
    let procs: String
    private let directory: String

    /// Makes a group allowed `cores` cores' worth of each 100 ms period,
    /// with the largest weight the kernel allows.
    ///
    /// The weight is what makes the quota bite on a busy machine. A group
    /// competes for CPU as one entity, with the weight of one ordinary
    /// process by default: beside a dozen busy processes (a parallel build)
    /// it gets about a thirteenth of the machine, under 0.3 cores on two,
    /// and is never throttled because it never reaches its quota. With the
    /// largest weight it gets nearly all of the CPU it asks for until the
    /// quota stops it.
    init?(cores: Double) {
        let name = "stressbench-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fm = FileManager.default
        let period = 100_000, quota = Int(cores * Double(period))
        if fm.fileExists(atPath: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us") {
            directory = "/sys/fs/cgroup/cpu/" + name
            guard (try? fm.createDirectory(atPath: directory, withIntermediateDirectories: false)) != nil else { return nil }
            guard Self.write("\(period)", to: directory + "/cpu.cfs_period_us"),
                  Self.write("\(quota)", to: directory + "/cpu.cfs_quota_us"),
                  Self.write("262144", to: directory + "/cpu.shares") else { rmdir(directory); return nil }
        } else if let controls = try? String(contentsOfFile: "/sys/fs/cgroup/cgroup.subtree_control", encoding: .utf8),
                  controls.split(separator: " ").contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "cpu" }) {
            directory = "/sys/fs/cgroup/" + name
            guard (try? fm.createDirectory(atPath: directory, withIntermediateDirectories: false)) != nil else { return nil }
            guard Self.write("\(quota) \(period)", to: directory + "/cpu.max"),
                  Self.write("10000", to: directory + "/cpu.weight") else { rmdir(directory); return nil }
        } else {
            return nil
        }
        procs = directory + "/cgroup.procs"
    }

    /// Removes the group once its processes have gone (the CLI waits for its
    /// trials, but the kernel may take a moment to empty the group); false
    /// when it is still there after a second.
    func remove() -> Bool {
        for _ in 0..<100 {
            if rmdir(directory) == 0 || errno == ENOENT { return true }
            usleep(10_000)
        }
        return false
    }

    private static func write(_ text: String, to path: String) -> Bool {
        guard let handle = FileHandle(forWritingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data(text.utf8))) != nil
    }
}
