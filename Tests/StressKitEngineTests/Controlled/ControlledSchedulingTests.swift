@testable import StressCore
import StressKitTestSupport
import XCTest

final class ControlledSchedulingTests: XCTestCase {
    func testALostUpdateIsFoundAndReplaysWithTheIdenticalSchedule() throws {
        let params: [String: ParameterValue] = ["variant": .text("split-rmw"), "read_ratio": .number(0.2)]
        let first = ControlledTrialSupport.run("counter", params, strategy: "unsynchronized",
                                               settings: ControlledTrialSupport.settings(threads: 4, seed: 7, fuzz: .pct))
        let output = try XCTUnwrap(first.output, "\(String(describing: first.error))")
        XCTAssertGreaterThan(output.violations.count, 0)
        XCTAssertEqual(output.schedule.mode, .controlled)
        print("decisions", output.schedule.decisions ?? -1, output.schedule.encoded?.prefix(200) ?? "", first.firstMessage ?? "")
        for _ in 0..<5 {
            let again = ControlledTrialSupport.run("counter", params, strategy: "unsynchronized",
                                                   settings: ControlledTrialSupport.settings(threads: 4, seed: 7, fuzz: .pct))
            XCTAssertEqual(again.output?.schedule.encoded, output.schedule.encoded)
            XCTAssertEqual(again.firstMessage, first.firstMessage)
        }
    }
}
