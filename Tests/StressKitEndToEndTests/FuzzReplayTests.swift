@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// `stressbench replay`: how often one trial's failure comes back.
final class FuzzReplayTests: XCTestCase {
    /// `replay` reruns one trial and says how often its failure came back; a
    /// trial that cannot fail never reproduces anything (and exits 1).
    func testReplayReportsTheReplayRate() throws {
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("replay.yaml").path
        try """
            experiments:
              - name: buggy
                workload: counter
                parameters: { variant: split-rmw }
                strategies: [mutex]
                threads: 4
                duration: 2s
                stop_on_violation: true
                fuzz: yield
              - name: sound
                workload: counter
                strategies: [mutex]
                threads: 2
                ops: 2000
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let buggy = try TestSupport.cli(["replay", plan, "--only", "buggy/mutex/t4/r0", "--times", "2"])
        XCTAssertEqual(buggy.status, 0, buggy.stdout + buggy.stderr)
        XCTAssertTrue(buggy.stdout.contains("run 1/2: violated: "), buggy.stdout)
        XCTAssertNotNil(buggy.stdout.range(of: #"replay rate: [12]/2 \(.*violated.*\); trial buggy/mutex/t4/r0, seed \d+, fuzz yield"#,
                                           options: .regularExpression), buggy.stdout)
        let sound = try TestSupport.cli(["replay", plan, "--only", "sound/mutex/t2/r0", "--times", "2"])
        XCTAssertEqual(sound.status, 1, sound.stdout + sound.stderr)
        XCTAssertTrue(sound.stdout.contains("replay rate: 0/2 (2 passed); trial sound/mutex/t2/r0"), sound.stdout)
    }
}
