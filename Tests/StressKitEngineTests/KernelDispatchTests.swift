import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import XCTest

/// Which measured loop the engine really runs for a strategy: the one
/// compiled for the pair of kernel and strategy wherever the strategy is
/// registered in the built-in chain, the loop through the protocol for a
/// team's own. Read from what each worker records, not from a list kept
/// beside the registry.
final class KernelDispatchTests: XCTestCase {
    /// Every built-in blocking strategy runs the `counter`'s kernel step in the
    /// loop compiled for the pair, as the engine really chooses it (the loop
    /// each worker records): one that fell back to the loop through the
    /// strategy's protocol would run correctly but slower, which no other test
    /// would see. The strategies come from the registry, not from a list kept
    /// beside it. The exceptions follow from the strategy's own type: one that
    /// takes ``CriticalSection`` values (`-f`) or defers its writes (`-async`)
    /// always runs the general loop, which alone passes sections and books
    /// deferred violations.
    func testEveryBuiltInBlockingStrategyRunsTheKernelLoopCompiledForIt() throws {
        var compiled: [String] = [], general: [String] = []
        for entry in StressRegistry.builtIn.strategies where entry.descriptor.execution != .tasks {
            let name = entry.descriptor.name
            guard case .blocking(let strategy) = try entry.make(StrategySetup(resources: 1, threads: 1)) else {
                XCTFail("\(name) runs on threads but is not a blocking strategy")
                continue
            }
            let generalOnly = strategy is any SectionPassingStrategy || entry.descriptor.asynchronousWrites
            let expected: MeasuredLoopKind = generalOnly ? .general : .compiledForKernelAndStrategy
            let output = try Self.runCounter(under: entry)
            XCTAssertEqual(output.measuredLoops, [expected], "\(name) does not run the loop it should")
            XCTAssertEqual(output.violations.count, 0, name)
            XCTAssertEqual(output.measurement.totalOps, 1_000, name)
            if generalOnly { general.append(name) } else { compiled.append(name) }
        }
        // The locks whose overhead docs/overhead.md measures are among them
        // (no count: a new strategy needs no edit here).
        for name in ["pthread-mutex", "nslock", "mutex"] {
            XCTAssertTrue(compiled.contains(name), "\(name) in \(compiled)")
        }
        XCTAssertTrue(general.contains("serial-queue-f"), "\(general)")
    }

    /// A team's own blocking strategy, registered at run time from outside
    /// StressKit (docs/own-strategies.md), runs the same kernel loop with its
    /// calls made through its protocol: correct, and counted exactly. A
    /// closure step under it gets the loop its `_runMeasuredLoop` default
    /// runs (generic, in another module).
    func testOwnStrategyRunsTheKernelLoopThroughItsProtocol() throws {
        var registry = StressRegistry.builtIn
        registry.register(strategy: AppLockStrategy.self)  // PluggabilityTests.swift's, as the guide shows it
        let entry = try XCTUnwrap(registry.strategy(named: AppLockStrategy.descriptor.name))
        let output = try Self.runCounter(under: entry)
        XCTAssertEqual(output.measuredLoops, [.kernelThroughProtocol])
        XCTAssertEqual(output.violations.count, 0)
        XCTAssertEqual(output.measurement.totalOps, 1_000)

        let closureSteps = try Self.run(
            EveryNthViolationWorkload.self, ["every": .integer(1_000_000), "one_step": .flag(true)], under: entry)
        XCTAssertEqual(closureSteps.measuredLoops, [.compiledForStrategy])
        XCTAssertEqual(closureSteps.violations.count, 0)
    }

    /// One trial of the `counter`, increments only (one kernel step), of 1,000
    /// operations, in this process.
    private static func runCounter(under entry: StrategyEntry) throws -> EngineOutput {
        try run(CounterWorkload.self, ["read_ratio": .number(0)], under: entry)
    }

    /// One trial of workload `W` with `overrides`, 1,000 operations on one
    /// thread (one, so that `unsynchronized` loses no update: the loop the
    /// engine picks is the same for any number), in this process, with the
    /// main thread serving the main queue (for `main-queue`).
    private static func run<W: Workload>(
        _ type: W.Type, _ overrides: [String: ParameterValue], under entry: StrategyEntry
    ) throws -> EngineOutput {
        let workload = try W(parameters: WorkloadParameters(defaultsOf: W.descriptor.parameters, overrides: overrides))
        let instance = try entry.make(StrategySetup(resources: workload.resourceCount, threads: 1))
        let settings = TrialSettings(threads: 1, seed: 1, warmupNs: 0, stop: .operations(perThread: 1_000))
        return try MainThreadService.run {
            Result { () throws(EngineError) in
                try TrialEngine.run(workload, strategy: instance, settings: settings, onStall: { _ in })
            }
        }.get()
    }
}
