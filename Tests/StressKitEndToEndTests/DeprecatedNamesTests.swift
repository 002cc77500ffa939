import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// Client files compiled against the StressKit this test run built, as a
/// team's package would: code written for a renamed public name still
/// compiles, warned; code that uses Foundation's `Operation` next to
/// StressKit compiles as it did, without a word.
final class DeprecatedNamesTests: XCTestCase {
    /// Type-checks `source` as a client file (Swift 6 mode) against the
    /// modules next to the test binary; returns the exit status and the
    /// diagnostics' lines (`file:line:col: warning: …`).
    private func typecheck(_ source: String, file: StaticString = #filePath) throws -> (status: Int32, diagnostics: [String]) {
        guard let swiftc = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .map({ "\($0)/swiftc" }).first(where: FileManager.default.isExecutableFile(atPath:))
        else { throw XCTSkip("needs swiftc on PATH") }
        // .build/<triple>/debug, with the modules in Modules/ and the
        // dependencies' sources in .build/checkouts.
        let build = URL(fileURLWithPath: TestSupport.stressbenchPath).deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: build.appendingPathComponent("Modules/StressKit.swiftmodule").path) else {
            throw XCTSkip("no StressKit.swiftmodule next to the test binary")
        }
        let checkouts = build.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("checkouts")
        let root = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // The C modules StressKit's interface refers to: its own targets',
        // its dependencies', and those SwiftPM generates.
        var maps: [String] = []
        for dir in [root.appendingPathComponent("Sources"), checkouts, build] {
            let walker = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                if url.lastPathComponent == "module.modulemap" { maps.append(url.path) }
                // The build directory's C targets' maps are in `X.build/`; the
                // ones below (`X.build/include/`) are Swift targets' own.
                if dir == build, url.pathComponents.count > build.pathComponents.count + 1 { walker?.skipDescendants() }
            }
        }
        let dir = try TestSupport.temporaryDirectory()
        let client = dir.appendingPathComponent("Client.swift")
        try source.write(to: client, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swiftc)
        process.arguments = ["-typecheck", "-swift-version", "6", "-module-name", "Client", client.path,
                             "-I", build.appendingPathComponent("Modules").path] + maps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var diagnostics = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(client.path + ":") }
            .map { String($0.dropFirst(dir.path.count + 1)) }
        if process.terminationStatus != 0 && diagnostics.isEmpty { diagnostics = [text] }
        return (process.terminationStatus, diagnostics)
    }

    /// A workload written before the rename, in a file that imports only
    /// StressKit: compiles, each use of the old name warned with the new one.
    func testAWorkloadWrittenWithTheOldNameCompilesWarned() throws {
        let result = try typecheck("""
            import StressKit

            struct Reads: Workload {
                static let descriptor = WorkloadDescriptor(name: "reads", summary: "reads")
                final class State: Sendable {}
                init(parameters: WorkloadParameters) throws {}
                func makeState(threads: Int) -> State { State() }
                func operations() -> [Operation<State>] {
                    [Operation("read", weight: 1, steps: [.read("load") { _, _ in .next }])]
                }
            }
            """)
        XCTAssertEqual(result.status, 0, result.diagnostics.joined(separator: "\n"))
        XCTAssertEqual(result.diagnostics, [
            "Client.swift:8:27: warning: 'Operation' is deprecated: renamed to 'StressOperation' [#DeprecatedDeclaration]",
            "Client.swift:9:10: warning: 'Operation' is deprecated: renamed to 'StressOperation' [#DeprecatedDeclaration]",
        ])
    }

    /// A file that imports Foundation and StressKit: `StressOperation` for
    /// the workload, and Foundation's `Operation` (NSOperation) everywhere
    /// it is written without generic arguments, inside the workload too.
    func testFoundationsOperationStaysFoundationsNextToStressKit() throws {
        let result = try typecheck("""
            import Foundation
            import StressKit

            final class Fetch: Operation, @unchecked Sendable {
                override func main() {}
            }

            func enqueue(_ operation: Operation, on queue: OperationQueue) { queue.addOperation(operation) }

            struct Jobs: Workload {
                static let descriptor = WorkloadDescriptor(name: "jobs", summary: "jobs")
                final class State: Sendable {}
                init(parameters: WorkloadParameters) throws {}
                func makeState(threads: Int) -> State { State() }
                func operations() -> [StressOperation<State>] {
                    [StressOperation("start", weight: 1, steps: [.write("start") { _, _ in .next }])]
                }
                func cancel(_ operation: Operation) { operation.cancel() }
                func make() -> Operation { BlockOperation {} }
            }
            """)
        XCTAssertEqual(result.status, 0, result.diagnostics.joined(separator: "\n"))
        XCTAssertEqual(result.diagnostics, [], "no ambiguity, no warning")
    }

    /// The old workload in a file that imports Foundation too fails as it
    /// did before the rename: there the name is Foundation's (the reason
    /// for the rename), and the error names it.
    func testTheOldNameNextToFoundationIsFoundationsAsBefore() throws {
        let result = try typecheck("""
            import Foundation
            import StressKit

            struct Reads: Workload {
                static let descriptor = WorkloadDescriptor(name: "reads", summary: "reads")
                final class State: Sendable {}
                init(parameters: WorkloadParameters) throws {}
                func makeState(threads: Int) -> State { State() }
                func operations() -> [Operation<State>] { [] }
            }
            """)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(result.diagnostics, ["Client.swift:9:27: error: cannot specialize non-generic type 'Operation'"])
    }

    /// `TrialResult.rerunCommand(planFile:)`, renamed `makeRerunCommand(planFile:)`.
    func testTheRerunCommandBuildersOldNameCompilesWarned() throws {
        let result = try typecheck("""
            import StressKit

            func rerun(_ record: TrialResult) -> String { record.rerunCommand ?? record.rerunCommand(planFile: "plan.yaml") }
            """)
        XCTAssertEqual(result.status, 0, result.diagnostics.joined(separator: "\n"))
        XCTAssertEqual(result.diagnostics.count, 1, result.diagnostics.joined(separator: "\n"))
        XCTAssertTrue(result.diagnostics.first?.contains("warning: 'rerunCommand(planFile:)' is deprecated: renamed to 'makeRerunCommand(planFile:)'") == true,
                      result.diagnostics.joined(separator: "\n"))
    }
    /// `Step.async` and `Step.nested`, renamed `awaiting` and `nestedWrites`
    /// (the words their accesses, `StepAccess.awaiting` and `.nestedWrites`,
    /// use), and `Step.waitUntil` with an integer nanosecond timeout: all
    /// compile, warned with the new form.
    func testTheOldStepFormsCompileWarned() throws {
        let result = try typecheck("""
            import StressKit

            final class Box: @unchecked Sendable { var ready = false }
            func steps() -> [Step<Box>] {
                [.async("old") { _, _ in .next },
                 .waitUntil("old-wait", timeout: 500_000_000, { box, _ in box.ready }, then: { _, _ in .next }),
                 .nested("old-nest", resources: [0, 1, 2]) { _, _ in .next },
                 .awaiting("new") { _, _ in .next },
                 .waitUntil("new-wait", timeout: .milliseconds(500), { box, _ in box.ready }, then: { _, _ in .next }),
                 .nestedWrites("new-nest", resources: [0, 1, 2]) { _, _ in .next }]
            }
            """)
        XCTAssertEqual(result.status, 0, result.diagnostics.joined(separator: "\n"))
        XCTAssertEqual(result.diagnostics.count, 3, result.diagnostics.joined(separator: "\n"))
        XCTAssertTrue(result.diagnostics[0].hasPrefix("Client.swift:5:7: warning: 'async' is deprecated: renamed to 'awaiting(_:_:)'"),
                      result.diagnostics.joined(separator: "\n"))
        XCTAssertTrue(result.diagnostics[1].hasPrefix("Client.swift:6:7: warning: 'waitUntil(_:resource:timeout:_:then:)' is deprecated: pass the timeout as a Duration"),
                      result.diagnostics.joined(separator: "\n"))
        XCTAssertTrue(result.diagnostics[2].hasPrefix("Client.swift:7:7: warning: 'nested(_:resources:_:)' is deprecated: renamed to 'nestedWrites(_:resources:_:)'"),
                      result.diagnostics.joined(separator: "\n"))
    }

    /// A record's integer nanosecond figures, read by their former public
    /// names: they compile, warned with the `Duration` to read.
    func testTheRecordsFormerNanosecondNamesCompileWarned() throws {
        let result = try typecheck("""
            import StressKit

            func p99(_ summary: LatencySummary) -> Int { summary.p99Ns }
            func times(_ r: TrialResult) -> [Int?] {
                [r.stall?.stalledForNs, r.stall?.beganAfterNs ?? nil, r.violations.firstAfterNs, r.measurement?.elapsedNs, r.wallNs]
            }
            func shortSpins(_ s: inout FuzzSettings) { s.spinMaxNs = 2_000 }
            func limit(_ t: TrialSpec) -> Int { t.timeoutNs }
            """)
        XCTAssertEqual(result.status, 0, result.diagnostics.joined(separator: "\n"))
        XCTAssertEqual(result.diagnostics.map { $0.replacingOccurrences(of: " [#DeprecatedDeclaration]", with: "") }, [
            "Client.swift:3:54: warning: 'p99Ns' is deprecated: read p99, a Duration",
            "Client.swift:5:15: warning: 'stalledForNs' is deprecated: read stalledFor, a Duration",
            "Client.swift:5:38: warning: 'beganAfterNs' is deprecated: read beganAfter, a Duration",
            "Client.swift:5:72: warning: 'firstAfterNs' is deprecated: read firstAfter, a Duration",
            "Client.swift:5:101: warning: 'elapsedNs' is deprecated: read elapsed, a Duration",
            "Client.swift:5:114: warning: 'wallNs' is deprecated: read wallTime, a Duration",
            "Client.swift:7:46: warning: 'spinMaxNs' is deprecated: use spinMax, a Duration",
            "Client.swift:8:39: warning: 'timeoutNs' is deprecated: read timeout, a Duration",
        ])
    }

    /// What a client reads of a record's times is a `Duration`: the
    /// nanosecond fields stay the JSON's, behind the package boundary.
    func testAClientReadsTheRecordsTimesAsDurations() throws {
        let result = try typecheck("""
            import StressKit

            func times(_ record: TrialResult) -> [Duration?] {
                [record.measurement?.latency?.p50, record.measurement?.latency?.p99, record.measurement?.elapsed,
                 record.stall?.stalledFor, record.violations.firstAfter, record.wallTime,
                 record.trial.timeout, record.trial.deadlockAfter, record.trial.warmup, record.trial.duration]
            }
            // The DocC article "Reading results", as written there.
            func readingResults() throws {
                let report = try StressTest(workload: "bank").strategies("pthread-mutex", "nslock").threads(4).run()
                for result in report.trials {
                    let throughput = result.measurement?.opsPerSecond ?? 0
                    let p99 = result.measurement?.latency?.p99 ?? .zero
                    print(result.trial.id, result.outcome, Int(throughput), "ops/s, p99", p99)
                    if let stall = result.stall { print(stall.summary, "after", stall.stalledFor) }
                }
            }
            func fuzz() -> FuzzSettings {
                var settings = FuzzSettings(.chaos)
                settings.spinMax = .microseconds(20)
                settings.staggerMax = .zero
                return settings
            }
            """)
        XCTAssertEqual(result.status, 0, result.diagnostics.joined(separator: "\n"))
        XCTAssertEqual(result.diagnostics, [])
    }
}
