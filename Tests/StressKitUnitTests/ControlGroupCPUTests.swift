import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A CPU-time quota (`docker --cpus`) is found on the process's control group
/// or any group above it, in either version of Linux control groups, recorded
/// with the environment, and a trial it held back says so.
final class ControlGroupCPUTests: XCTestCase {
    /// A made-up file tree: path to contents.
    private func reader(_ files: [String: String]) -> (String) -> String? { { files[$0] } }

    func testVersion2QuotaIsTheTightestOnTheGroupOrAbove() throws {
        let files = [
            "/proc/self/mountinfo": "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
                + "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
            "/proc/self/cgroup": "0::/ci.slice/job-7\n",
            "/sys/fs/cgroup/ci.slice/job-7/cpu.max": "max 100000\n",
            "/sys/fs/cgroup/ci.slice/cpu.max": "150000 100000\n",
            "/sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n",
        ]
        let groups = try XCTUnwrap(ControlGroupCPU.locate(read: reader(files)))
        XCTAssertEqual(groups.groups.map(\.directory), ["/sys/fs/cgroup/ci.slice/job-7", "/sys/fs/cgroup/ci.slice", "/sys/fs/cgroup"])
        XCTAssertEqual(groups.find(read: reader(files)),
                       .limited(group: .init(directory: "/sys/fs/cgroup/ci.slice", version: .v2), cores: 1.5),
                       "the parent's quota limits the child's processes")
        XCTAssertEqual(groups.find(read: reader(files)).quota, .cores(1.5))
    }

    func testVersion2WithoutTheCPUControllerHasNoQuota() throws {
        let files = [
            "/proc/self/mountinfo": "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
            "/proc/self/cgroup": "0::/app\n",
            "/sys/fs/cgroup/app/cgroup.controllers": "memory pids\n",
            "/sys/fs/cgroup/cgroup.controllers": "cpu memory pids\n",
        ]
        let groups = try XCTUnwrap(ControlGroupCPU.locate(read: reader(files)))
        XCTAssertEqual(groups.find(read: reader(files)), .unlimited, "read, and no cpu.max anywhere: nothing can limit")
    }

    func testVersion1ContainerSeesItsOwnSubtreeAtTheMountPoint() throws {
        // Docker without a cgroup namespace: the mount shows /docker/abc as its
        // root, and /proc/self/cgroup names the same path.
        let files = [
            "/proc/self/mountinfo": "40 31 0:37 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct\n"
                + "41 31 0:38 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n",
            "/proc/self/cgroup": "5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n",
            "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "50000\n",
            "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
        ]
        let groups = try XCTUnwrap(ControlGroupCPU.locate(read: reader(files)))
        XCTAssertEqual(groups.groups, [.init(directory: "/sys/fs/cgroup/cpu,cpuacct", version: .v1)])
        XCTAssertEqual(groups.find(read: reader(files)).quota, .cores(0.5))
    }

    func testHybridHierarchiesReadBothAndAQuotaOfMinusOneIsNone() throws {
        // This machine's layout: every v1 controller mounted on its own, and
        // the unified (v2) hierarchy beside them with no controllers.
        let files = [
            "/proc/self/mountinfo": "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
                + "33 31 0:30 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"
                + "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
            "/proc/self/cgroup": "2:cpuacct:/\n1:cpu:/build\n0::/\n",
            "/sys/fs/cgroup/cpu/build/cpu.cfs_quota_us": "-1\n",
            "/sys/fs/cgroup/cpu/build/cpu.cfs_period_us": "100000\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
            "/sys/fs/cgroup/unified/cgroup.controllers": "\n",
        ]
        let groups = try XCTUnwrap(ControlGroupCPU.locate(read: reader(files)))
        XCTAssertEqual(groups.groups.map(\.directory), ["/sys/fs/cgroup/cpu/build", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/unified"],
                       "not the cpuacct hierarchy: `cpu` must be a controller of its own, not a prefix")
        XCTAssertEqual(groups.find(read: reader(files)), .unlimited)
        var limited = files
        limited["/sys/fs/cgroup/cpu/build/cpu.cfs_quota_us"] = "250000"
        limited["/sys/fs/cgroup/cpu/cpu.cfs_quota_us"] = "300000"
        XCTAssertEqual(groups.find(read: reader(limited)),
                       .limited(group: .init(directory: "/sys/fs/cgroup/cpu/build", version: .v1), cores: 2.5))
    }

    func testNothingToReadIsUnknownNotUnlimited() throws {
        XCTAssertNil(ControlGroupCPU.locate(read: reader([:])), "no /proc: not Linux")
        let noController = [
            "/proc/self/mountinfo": "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
            "/proc/self/cgroup": "0::/\n",
        ]
        XCTAssertNil(ControlGroupCPU.locate(read: reader(noController)), "no hierarchy mounted")
        let unreadable = [
            "/proc/self/mountinfo": "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
            "/proc/self/cgroup": "0::/app\n",
        ]
        let groups = try XCTUnwrap(ControlGroupCPU.locate(read: reader(unreadable)))
        XCTAssertEqual(groups.find(read: reader(unreadable)), .unreadable)
        XCTAssertNil(groups.find(read: reader(unreadable)).quota, "unknown: no claim of 'no quota'")
    }

    func testMountPointsWithEscapedSpacesAndOptionalFieldsAreRead() throws {
        let files = [
            "/proc/self/mountinfo": #"30 23 0:26 / /mnt/cgroup\040v2 rw,nosuid shared:4 master:1 propagate_from:2 - cgroup2 cgroup2 rw"# + "\n",
            "/proc/self/cgroup": "0::/\n",
        ]
        XCTAssertEqual(try XCTUnwrap(ControlGroupCPU.locate(read: reader(files))).groups.map(\.directory), ["/mnt/cgroup v2"])
    }

    func testAGroupThatCannotBeReadMakesNoQuotaUnknown() throws {
        // Hybrid layout: the v1 `cpu` group cannot be read, the unified
        // hierarchy (no controllers) can. Its "nothing here" says nothing
        // about the v1 group.
        var files = [
            "/proc/self/mountinfo": "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
                + "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
            "/proc/self/cgroup": "1:cpu:/build\n0::/\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
            "/sys/fs/cgroup/unified/cgroup.controllers": "\n",
        ]
        let groups = try XCTUnwrap(ControlGroupCPU.locate(read: reader(files)))
        XCTAssertEqual(groups.find(read: reader(files)), .unreadable, "/build could not be read: it may hold a quota")
        files["/sys/fs/cgroup/cpu/cpu.cfs_quota_us"] = "150000"
        XCTAssertEqual(groups.find(read: reader(files)).quota, .cores(1.5), "a quota that was read applies whatever the rest says")
    }

    func testAGroupOutsideTheMountIsUnknownNotTheMountPointsGroup() throws {
        let outside = [
            "/proc/self/mountinfo": "40 31 0:37 /docker/abc /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n",
            "/proc/self/cgroup": "4:cpu:/system.slice/other\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
        ]
        let groups = try XCTUnwrap(ControlGroupCPU.locate(read: reader(outside)))
        XCTAssertEqual(groups.chains, [[]], "the mount shows /docker/abc, not the process's group")
        XCTAssertEqual(groups.find(read: reader(outside)), .unreadable)
        let sibling = [
            "/proc/self/mountinfo": "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
            "/proc/self/cgroup": "0::/../../sibling\n",
            "/sys/fs/cgroup/cgroup.controllers": "cpu\n",
        ]
        let other = try XCTUnwrap(ControlGroupCPU.locate(read: reader(sibling)))
        XCTAssertEqual(other.chains, [[]], "a group named from outside this namespace is not under the mount")
        XCTAssertEqual(other.find(read: reader(sibling)), .unreadable)
    }

    func testQuotaDescriptions() {
        XCTAssertEqual(CPUQuota.cores(1).description, "1 core")
        XCTAssertEqual(CPUQuota.cores(1.001).description, "1.001 cores")
        XCTAssertEqual(CPUQuota.cores(0.125).description, "0.125 cores")
        XCTAssertEqual(CPUQuota.cores(2.5).description, "2.5 cores")
        XCTAssertEqual(CPUQuota.cores(0.0005).description, "0.0005 cores")
        XCTAssertEqual(CPUQuota.unlimited.description, "none")
        XCTAssertEqual("\(CPUQuota.cores(0.5))", "0.5 cores")
    }

    func testThrottlingCountersOfBothVersions() {
        let v2 = ControlGroupCPU.Group(directory: "/g2", version: .v2), v1 = ControlGroupCPU.Group(directory: "/g1", version: .v1)
        let files = [
            "/g2/cpu.stat": "usage_usec 900\nuser_usec 800\nsystem_usec 100\nnr_periods 12\nnr_throttled 5\nthrottled_usec 4200\n",
            "/g1/cpu.stat": "nr_periods 7\nnr_throttled 3\nthrottled_time 1500000\nnr_bursts 0\nburst_time 0\n",
        ]
        XCTAssertEqual(ControlGroupCPU.throttling(of: v2, read: reader(files)),
                       ThrottleCounters(periods: 12, throttledPeriods: 5, throttledNs: 4_200_000), "v2 counts microseconds")
        XCTAssertEqual(ControlGroupCPU.throttling(of: v1, read: reader(files)),
                       ThrottleCounters(periods: 7, throttledPeriods: 3, throttledNs: 1_500_000), "v1 counts nanoseconds")
        XCTAssertNil(ControlGroupCPU.throttling(of: v2, read: reader(["/g2/cpu.stat": "usage_usec 900\n"])),
                     "a group without the CPU controller counts no throttling: unknown, not 0")
    }

    func testQuotaIsRecordedInTheEnvironmentWithUnknownAndNoneKeptApart() throws {
        var env = EnvironmentInfo(os: "os", cpu: "cpu", cores: 4, usableCores: 4, cpuQuota: .cores(1.5), swiftVersion: "6.3",
                                  buildConfiguration: "release", toolVersion: StressKitVersion.current)
        XCTAssertEqual(env.coresDescription, "4 cores (CPU quota 1.5 cores)")
        func roundTrip(_ e: EnvironmentInfo) throws -> (EnvironmentInfo, String) {
            let data = try ResultCoding.encoder().encode(e)
            return (try ResultCoding.decoder().decode(EnvironmentInfo.self, from: data), String(decoding: data, as: UTF8.self))
        }
        var (back, json) = try roundTrip(env)
        XCTAssertEqual(back, env)
        XCTAssertTrue(json.replacingOccurrences(of: " ", with: "").contains(#""cpuQuotaCores":1.5"#), json)
        env.cpuQuota = .unlimited
        (back, json) = try roundTrip(env)
        XCTAssertEqual(back.cpuQuota, .unlimited)
        XCTAssertTrue(json.replacingOccurrences(of: " ", with: "").contains(#""cpuQuotaCores":null"#), "no quota is written as null: \(json)")
        XCTAssertEqual(env.coresDescription, "4 cores")
        env.cpuQuota = nil
        (back, json) = try roundTrip(env)
        XCTAssertNil(back.cpuQuota)
        XCTAssertFalse(json.contains("cpuQuotaCores"), "unknown is left out: \(json)")
        env.usableCores = 1
        env.cpuQuota = .cores(1)
        XCTAssertEqual(env.coresDescription, "4 cores (1 usable by this process, CPU quota 1 core)")
    }

    func testAQuotaDifferenceIsNamedAndAnUnknownOneIsNot() {
        func env(_ quota: CPUQuota?) -> EnvironmentInfo {
            EnvironmentInfo(os: "os", cpu: "cpu", cores: 2, usableCores: 2, cpuQuota: quota, swiftVersion: "6.3",
                            buildConfiguration: "release", toolVersion: StressKitVersion.current)
        }
        XCTAssertEqual(env(.cores(0.5)).differences(from: env(.unlimited)), ["CPU quota: none in the baseline, 0.5 cores here"])
        XCTAssertEqual(env(.cores(2)).changes(from: env(.cores(1.5))),
                       [EnvironmentInfo.Change(what: "CPU quota", before: "1.5 cores", after: "2 cores")])
        XCTAssertEqual(env(.cores(0.5)).differences(from: env(nil)), [], "a record from before quotas were read")
        XCTAssertEqual(env(.unlimited).differences(from: env(.unlimited)), [])
    }

    func testTheTableNamesTheTrialsAQuotaHeldBack() throws {
        func trial(_ repetition: Int, periods: Int?, throttled: Int?) -> TrialResult {
            var r = Synthetic.trial(repetition: repetition, opsPerSecond: 1000, latencyNs: 100)
            r.environment.cpuQuota = periods == nil ? .unlimited : .cores(0.5)
            let start = ResourceUsage.Reading(usage: rusage(), throttling: periods.map { _ in ThrottleCounters(periods: 10, throttledPeriods: 1, throttledNs: 0) })
            let end = ResourceUsage.Reading(usage: rusage(), throttling: periods.map {
                ThrottleCounters(periods: 10 + $0, throttledPeriods: 1 + (throttled ?? 0), throttledNs: 7_000_000)
            })
            r.measurement?.resources = ResourceUsage(from: start, to: end, operations: 100)
            return r
        }
        let held = trial(0, periods: 4, throttled: 3), free = trial(1, periods: 4, throttled: 0)
        XCTAssertEqual(held.measurement?.resources?.quotaPeriods, 4)
        XCTAssertEqual(held.measurement?.resources?.throttledPeriods, 3)
        XCTAssertEqual(held.measurement?.resources?.throttledNs, 7_000_000)
        let line = try XCTUnwrap(TableReport.throttlingLine([held, free]))
        XCTAssertTrue(line.hasPrefix("CPU quota: the trial process's control group (quota 0.5 cores) was throttled during 1 of 2 trial(s) (in up to 75% of"), line)
        XCTAssertTrue(line.hasSuffix("Throttled: e/mutex/t2/r0."), line)
        XCTAssertTrue(TableReport.render(Synthetic.report([held, free])).contains(line))
        XCTAssertTrue(MarkdownReport.render(Synthetic.report([held, free])).contains("**CPU quota: the trial process's control group"))
        XCTAssertNil(TableReport.throttlingLine([free]), "not held back: nothing to say")
        let unwatched = trial(2, periods: nil, throttled: nil)
        XCTAssertNil(unwatched.measurement?.resources?.throttledNs, "no quota: absent, never 0")
        XCTAssertNil(TableReport.throttlingLine([unwatched]))
    }

    func testMergingShardsFromDifferentEnvironmentsWarnsAndCompareNotesEveryTrial() throws {
        func shard(_ repetition: Int, quota: CPUQuota) -> RunReport {
            var trial = Synthetic.trial(repetition: repetition, opsPerSecond: 1000, latencyNs: 100)
            trial.environment.cpuQuota = quota
            var report = Synthetic.report([trial])
            report.environment = trial.environment
            return report
        }
        let a = shard(0, quota: .unlimited), b = shard(1, quota: .cores(0.5))
        XCTAssertEqual(RunReport.environmentWarnings([("a.json", a), ("a2.json", a)]), [])
        let warnings = RunReport.environmentWarnings([("a.json", a), ("b.json", b)])
        XCTAssertEqual(warnings, ["warning: b.json was measured in another environment than a.json "
            + "(CPU quota: none in a.json, 0.5 cores in b.json): the merged figures mix the two, "
            + "and the merged file's environment line is a.json's (each trial keeps its own)"])
        let merged = try RunReport.merge([("a.json", a), ("b.json", b)], allowPartial: true)
        XCTAssertEqual(merged.environment.cpuQuota, .unlimited, "the first file's")
        var baseline = Synthetic.report(a.trials + [shard(1, quota: .unlimited).trials[0]])
        baseline.environment = a.environment
        let gate = GateReport.evaluate(merged.trials, policy: GatePolicy(), baseline: baseline, environment: merged.environment)
        XCTAssertEqual(gate.comparison?.environmentDifferences, ["CPU quota: none in the baseline, 0.5 cores here"],
                       "the second shard's trial differs though the merged file's environment is the first's")
    }
}

