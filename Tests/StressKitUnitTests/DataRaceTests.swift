import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// ThreadSanitizer's reports as violations: the plan key, the parse of its
/// text (accesses, workers, frames, the dedupe), and where a race shows.
/// No TSan build is needed: the reports are text TSan wrote, kept here.
final class DataRaceTests: XCTestCase {
    /// Two reports of one race (the same pair of accesses, in either order)
    /// and one of another, as TSan writes them with `log_path`.
    static let log = """
        ==================
        WARNING: ThreadSanitizer: data race (pid=29029)
          Read of size 1 at 0x720800000030 by thread T2:
            #0 $s14OwnCodeExample13SettingsCacheC5value2ofS2i_tF /work/pkg/Examples/OwnCode/SettingsCache.swift:33:15 (stressbench+0xfc566) (BuildId: 5869d2)
            #1 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8) (BuildId: bbe205)

          Previous write of size 1 at 0x720800000030 by thread T1 (mutexes: write M0):
            #0 $s14OwnCodeExample13SettingsCacheC5value2ofS2i_tF /work/pkg/Examples/OwnCode/SettingsCache.swift:35:22 (stressbench+0xfc584) (BuildId: 5869d2)

          Location is heap block of size 32 at 0x720800000020 allocated by main thread:
            #0 malloc /llvm/tsan_interceptors_posix.cpp:686:5 (stressbench+0x79ac0) (BuildId: 5869d2)

          Thread T2 'sb-worker-1' (tid=29036, running) created by thread T5 at:
            #0 pthread_create /llvm/tsan_interceptors_posix.cpp:1094:3 (stressbench+0x7b6aa) (BuildId: 5869d2)

          Thread T1 'sb-worker-0' (tid=29035, finished) created by thread T5 at:
            #0 pthread_create /llvm/tsan_interceptors_posix.cpp:1094:3 (stressbench+0x7b6aa) (BuildId: 5869d2)

        SUMMARY: ThreadSanitizer: data race /work/pkg/Examples/OwnCode/SettingsCache.swift:33:15 in $s14OwnCodeExample13SettingsCacheC5value2ofS2i_tF
        ==================
        ==================
        WARNING: ThreadSanitizer: data race (pid=29029)
          Write of size 1 at 0x720800000070 by thread T1:
            #0 $s14OwnCodeExample13SettingsCacheC5value2ofS2i_tF /work/pkg/Examples/OwnCode/SettingsCache.swift:35:22 (stressbench+0xfc584) (BuildId: 5869d2)

          Previous read of size 1 at 0x720800000070 by thread T2:
            #0 $s14OwnCodeExample13SettingsCacheC5value2ofS2i_tF /work/pkg/Examples/OwnCode/SettingsCache.swift:33:15 (stressbench+0xfc566) (BuildId: 5869d2)

          Thread T2 'sb-worker-1' (tid=29036, running) created by thread T5 at:
            #0 pthread_create /llvm/tsan_interceptors_posix.cpp:1094:3 (stressbench+0x7b6aa) (BuildId: 5869d2)

          Thread T1 'sb-worker-0' (tid=29035, running) created by thread T5 at:
            #0 pthread_create /llvm/tsan_interceptors_posix.cpp:1094:3 (stressbench+0x7b6aa) (BuildId: 5869d2)

        SUMMARY: ThreadSanitizer: data race /work/pkg/Examples/OwnCode/SettingsCache.swift:35:22 in $s14OwnCodeExample13SettingsCacheC5value2ofS2i_tF
        ==================
        ==================
        WARNING: ThreadSanitizer: Swift access race (pid=29029)
          Modifying access of Swift variable at 0x7b0400001230 by thread T3:
            #0 counterStep /work/pkg/Sources/Counter.swift:12:9 (stressbench+0x1000)

          Previous read-only access of Swift variable at 0x7b0400001230 by main thread:
            #0 badgeCheck /work/pkg/Sources/Badge.swift:40:3 (stressbench+0x2000)

          Location is global 'tally' of size 8 at 0x7b0400001230 (stressbench+0x7b0400001230)

          Thread T3 (tid=29040, running) created by main thread at:
            #0 pthread_create /llvm/tsan_interceptors_posix.cpp:1094:3 (stressbench+0x7b6aa)

        SUMMARY: ThreadSanitizer: Swift access race /work/pkg/Sources/Counter.swift:12:9 in counterStep
        ==================
        ==================
        WARNING: ThreadSanitizer: lock-order-inversion (potential deadlock) (pid=29029)
          Cycle in lock order graph: M0 => M1 => M0
        ==================
        ThreadSanitizer: reported 4 warnings
        """

    func testAReportsAccessesBecomeWorkersAndDemangledFramesRelativeToTheRoot() throws {
        let races = ThreadSanitizerReport.races(in: Self.log, root: "/work/pkg")
        XCTAssertEqual(races.count, 2, "the second report is the first race again, its accesses swapped; the lock-order report is not a race")
        let race = try XCTUnwrap(races.first)
        XCTAssertEqual(race.kind, .dataRace)
        let accesses = try XCTUnwrap(race.accesses)
        XCTAssertEqual(accesses.map(\.write), [false, true])
        XCTAssertEqual(accesses.map(\.worker), [1, 0])
        XCTAssertEqual(accesses.map(\.thread), ["worker 1", "worker 0"])
        XCTAssertEqual(accesses[0].frames.first, "OwnCodeExample.SettingsCache.value(of: Swift.Int) -> Swift.Int at Examples/OwnCode/SettingsCache.swift:33")
        XCTAssertEqual(accesses[0].frames.count, 2, "a frame TSan could not place keeps its function")
        XCTAssertEqual(accesses[0].frames[1], "Foundation.Thread.main() -> ()")
        XCTAssertEqual(accesses[1].frames, ["OwnCodeExample.SettingsCache.value(of: Swift.Int) -> Swift.Int at Examples/OwnCode/SettingsCache.swift:35"])
        XCTAssertEqual(race.location, "heap block of size 32 allocated by main thread")
        XCTAssertEqual(race.thread, 1)

        let swift = races[1]
        XCTAssertEqual(swift.accesses?.map(\.write), [true, false])
        XCTAssertEqual(swift.accesses?.map(\.worker), [nil, nil])
        XCTAssertEqual(swift.accesses?.map(\.thread), ["thread T3", "main thread"], "an unnamed thread keeps TSan's number")
        XCTAssertEqual(swift.location, "global 'tally' of size 8")
    }

    func testARaceMakesAPassedTrialViolatedAndShowsBothStacks() throws {
        var result = Synthetic.trial(strategy: "unsynchronized", repetition: 0, opsPerSecond: 1000, latencyNs: 100)
        result.record(dataRaces: ThreadSanitizerReport.races(in: Self.log, root: "/work/pkg"))
        XCTAssertEqual(result.outcome, .violated)
        XCTAssertEqual(result.violations.count, 2)

        let details = TableReport.details(result, planFile: "plan.yaml")
        XCTAssertTrue(details.contains("data race: read by worker 1 in OwnCodeExample.SettingsCache.value"), details)
        XCTAssertTrue(details.contains("previous write by worker 0:"), details)
        XCTAssertTrue(details.contains("SettingsCache.swift:33") && details.contains("SettingsCache.swift:35"), details)
        let report = Synthetic.report([result])
        XCTAssertTrue(JUnitReport.render(report).contains("previous write by worker 0:"))
        XCTAssertTrue(MarkdownReport.render(report).contains("SettingsCache.swift:35"))

        let json = try JSONSerialization.jsonObject(with: ResultCoding.encoder(pretty: false).encode(result)) as? [String: Any]
        let samples = try XCTUnwrap((json?["violations"] as? [String: Any])?["samples"] as? [[String: Any]])
        XCTAssertEqual(samples[0]["kind"] as? String, "data-race")
        let accesses = try XCTUnwrap(samples[0]["accesses"] as? [[String: Any]])
        XCTAssertEqual(accesses.count, 2)
        XCTAssertEqual(accesses[0]["write"] as? Bool, false)
        XCTAssertEqual(accesses[0]["worker"] as? Int, 1)
        XCTAssertEqual((accesses[1]["frames"] as? [String])?.count, 1)
        let decoded = try ResultCoding.decoder().decode(TrialResult.self, from: ResultCoding.encoder(pretty: false).encode(result))
        XCTAssertEqual(decoded.violations, result.violations)
    }

    func testARaceSatisfiesAPlanThatExpectsViolated() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [unsynchronized]
                threads: 2
                expect: violated
            """)
        var result = TrialResult(trial: TrialMatrix.expand(plan)[0], outcome: .passed, measurement: nil, violations: .none, failure: nil)
        XCTAssertEqual(result.expectation, .missed)
        result.record(dataRaces: ThreadSanitizerReport.races(in: Self.log))
        XCTAssertEqual(result.expectation, .caught)
    }

    func testNoRacesLeaveTheTrialAlone() {
        var result = Synthetic.trial(repetition: 0, opsPerSecond: 1000, latencyNs: 100)
        result.record(dataRaces: ThreadSanitizerReport.races(in: "ThreadSanitizer: reported 0 warnings\n"))
        XCTAssertEqual(result.outcome, .passed)
        XCTAssertEqual(result.violations, .none)
    }

    func testThePlanKeyIsRefusedWithoutATSanBuildWithTheBuildCommand() {
        var loader = PlanLoader(registry: TestSupport.registry)
        loader.threadSanitizerBuilt = false
        let text = "sanitizer: thread\nexperiments:\n  - workload: counter\n    strategies: [mutex]\n"
        XCTAssertThrowsError(try loader.load(text: text, file: "races.yaml")) { error in
            let problems = (error as? PlanError)?.problems.map(\.description) ?? []
            XCTAssertEqual(problems.count, 1)
            XCTAssertTrue(problems.first?.hasPrefix("races.yaml:1:12: sanitizer: this plan needs a ThreadSanitizer build") == true, "\(problems)")
            XCTAssertTrue(problems.first?.contains("swift build -c release --sanitize=thread") == true, "\(problems)")
        }
        loader.threadSanitizerBuilt = true
        XCTAssertEqual(try loader.load(text: text, file: "races.yaml").sanitizer, "thread")
        XCTAssertThrowsError(try loader.load(text: "sanitizer: address\n" + text.dropFirst("sanitizer: thread\n".count), file: "races.yaml")) { error in
            XCTAssertTrue((error as? PlanError)?.problems.first?.description.contains("expected thread") == true, "\(error)")
        }
    }

    func testTheEnvironmentSaysTheSanitizerOnlyWhenThereIsOne() throws {
        var environment = EnvironmentInfo(os: "os", cpu: "cpu", cores: 2, usableCores: 2, swiftVersion: "6.3",
                                          buildConfiguration: "release", toolVersion: "0")
        var json = String(decoding: try JSONEncoder().encode(environment), as: UTF8.self)
        XCTAssertFalse(json.contains("sanitizer"), json)
        environment.sanitizer = "thread"
        json = String(decoding: try JSONEncoder().encode(environment), as: UTF8.self)
        XCTAssertTrue(json.contains("\"sanitizer\":\"thread\""), json)
        XCTAssertEqual(try JSONDecoder().decode(EnvironmentInfo.self, from: Data(json.utf8)).sanitizer, "thread")
        var plain = environment
        plain.sanitizer = nil
        XCTAssertEqual(environment.differences(from: plain), ["sanitizer: none in the baseline, thread here"])
        XCTAssertEqual(EnvironmentInfo.current.sanitizer, ThreadSanitizer.isActive ? "thread" : nil)
    }

    func testTheTrialProcessOptionsSendReportsToTheTrialsLogAndKeepTheUsersOwn() throws {
        let log = try XCTUnwrap(TrialRaceLog.make())
        defer { log.remove() }
        let options = log.options(inherited: "verbosity=1")
        XCTAssertTrue(options.hasPrefix("verbosity=1 log_path=\"\(log.directory)/report\""), options)
        for flag in ["halt_on_error=0", "exitcode=0", "suppressions=\"\(log.suppressionsPath)\"", "atexit_sleep_ms=0"] {
            XCTAssertTrue(options.contains(flag), options)
        }
        XCTAssertEqual(log.options(inherited: nil), log.options(inherited: ""))
        XCTAssertFalse(log.options(inherited: nil).hasPrefix(" "))
        let sleeps = log.options(inherited: "atexit_sleep_ms=500")
        XCTAssertFalse(sleeps.contains("atexit_sleep_ms=0"), "a sleep the user asks for is kept: \(sleeps)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: log.suppressionsPath))
        let own = log.options(inherited: "suppressions=/team/tsan.supp")
        XCTAssertTrue(own.hasPrefix("suppressions=/team/tsan.supp log_path="), own)
        XCTAssertFalse(own.contains(log.suppressionsPath), "a team's own suppressions file is kept: \(own)")
        try Self.log.write(toFile: log.directory + "/report.123", atomically: true, encoding: .utf8)
        XCTAssertEqual(log.collect(root: "/work/pkg").count, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: log.directory), "collecting removes the trial's directory")
    }

    func testWorkerThreadNamesRoundTripAndFitLinuxsLimit() {
        XCTAssertEqual(WorkerThreadName.worker(named: "sb-worker-4095"), 4095)
        XCTAssertNil(WorkerThreadName.worker(named: "main"))
        XCTAssertLessThan("sb-worker-4095".utf8.count, 16)
    }
}
