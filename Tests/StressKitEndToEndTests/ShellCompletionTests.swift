import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Shell completion offers plan files and the values of --fuzz, --metric and --allocator.
final class ShellCompletionTests: XCTestCase {
    func testBashCompletionKnowsPlansAndOptionValues() throws {
        let r = try TestSupport.cli(["--generate-completion-script", "bash"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let script = r.stdout
        XCTAssertTrue(script.contains("__stressbench_add_completions -W 'off'$'\\n''light'$'\\n''yield'$'\\n''chaos'$'\\n''pct'$'\\n''portfolio'"), "--fuzz values")
        XCTAssertTrue(script.contains("__stressbench_add_completions -W 'system'$'\\n''jemalloc'"), "--allocator values")
        XCTAssertTrue(script.contains("'p50'$'\\n''p90'$'\\n''p99'$'\\n''p99.9'"), "--metric values")
        XCTAssertTrue(script.contains("-fX '!*.@(yaml|yml|json)'"), "plan files by extension")
        let zsh = try TestSupport.cli(["--generate-completion-script", "zsh"]).stdout
        XCTAssertTrue(zsh.contains(":plan:_files -g '\\''*.yaml *.yml *.json'\\''"), "zsh completes plan files too")
    }
}
