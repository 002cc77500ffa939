import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Allocations per operation as the trial processes count them, under the
/// system allocator and under jemalloc.
final class AllocatorCountTests: XCTestCase {
    /// Under the system allocator, malloc-interposer (linked into every
    /// stressbench process, as package-benchmark links it) counts the
    /// allocation calls: none per operation in a lock's hot loop, two for
    /// the Swift `sync` overlay, which copies its closure and context to the
    /// heap (jemalloc counts the same: the jemalloc test below).
    func testSystemAllocatorCountsAllocationsPerOperation() throws {
        #if os(Linux)
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: counter
                strategies: [pthread-mutex, mutex, serial-queue-f, serial-queue]
                threads: 2
                ops: 20k
                warmup: 0s
            """)
        var perOp: [String: Double] = [:]
        for t in report.trials {
            XCTAssertEqual(t.outcome, .passed, t.trial.id)
            let a = try XCTUnwrap(t.measurement?.allocator, t.trial.id)
            XCTAssertEqual(a.name, "system")
            XCTAssertNil(a.residentBytes, "only jemalloc says what is resident")
            XCTAssertNotNil(a.bytesPerOp, t.trial.id)
            perOp[t.trial.strategy] = try XCTUnwrap(a.allocationsPerOp, t.trial.id)
        }
        for lock in ["pthread-mutex", "mutex"] {
            // Process-wide, so what other threads allocate in time counts too
            // (see the jemalloc test below); one allocation per call would read 1.
            XCTAssertLessThan(try XCTUnwrap(perOp[lock]), 0.1, "\(lock): the hot loop allocates nothing")
        }
        // The count is process-wide: under contention libdispatch wakes and
        // makes threads of its own for a queue, and their allocations count
        // too (0.0 to 0.05 per operation in runs of this test), so the C path
        // is held to "not per call", against the overlay's two per call.
        XCTAssertLessThan(try XCTUnwrap(perOp["serial-queue-f"]), 0.25, "serial-queue-f: no allocation per call")
        XCTAssertGreaterThan(try XCTUnwrap(perOp["serial-queue"]), 0.5, "the sync overlay allocates per call")
        #else
        throw XCTSkip("malloc-interposer replaces malloc by linking on Linux only")
        #endif
    }

    /// The measured loop allocates nothing under every lock strategy, the
    /// lock-free baseline and the `-f` queues (the harness included); the Swift
    /// `sync` overlay's queues and the actors are reported as measured.
    func testHotLoopAllocatesNothingUnderJemalloc() throws {
        guard Jemalloc.libraryPath != nil else {
            throw XCTSkip("jemalloc is not installed (\(Jemalloc.installHint)); the allocator figures cannot be read")
        }
        // The unsynchronized control reports violations, whose messages allocate.
        let entries = StressRegistry.builtIn.defaultStrategies.filter(\.descriptor.synchronizes)
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: counter
                strategies: [\(entries.map(\.descriptor.name).joined(separator: ", "))]
                threads: [1, 2]
                ops: 50k
                warmup: 50ms
                allocator: jemalloc
            """)
        XCTAssertEqual(report.trials.count, entries.count * 2)
        for t in report.trials {
            XCTAssertEqual(t.outcome, .passed, t.trial.id)
            XCTAssertTrue(t.trial.id.contains("/jemalloc/"), t.trial.id)
            let a = try XCTUnwrap(t.measurement?.allocator, t.trial.id)
            XCTAssertEqual(a.name, "jemalloc")
            XCTAssertNotNil(a.residentBytes)
            let requests = try XCTUnwrap(a.allocationsPerOp, t.trial.id)
            let entry = try XCTUnwrap(entries.first { $0.descriptor.name == t.trial.strategy })
            let d = entry.descriptor
            guard d.execution == .threads else {
                XCTAssertNil(a.bytesPerOp, "task workers move between threads: \(t.trial.id)")
                continue
            }
            let bytes = try XCTUnwrap(a.bytesPerOp, t.trial.id)
            guard case .blocking(let strategy) = try entry.make(StrategySetup(resources: 1, threads: 1)) else {
                return XCTFail("\(d.name) runs on threads but is not a blocking strategy")
            }
            let overlay = d.primitive == .queue || d.primitive == .mainQueue  // DispatchQueue.sync, as the model is
            if !overlay || strategy is any SectionPassingStrategy {
                // Nothing per operation. The bytes are the workers' own
                // (jemalloc's per-thread counters): a one-time allocation on
                // some worker's first use would still round to 0.00 over 50k
                // operations. The requests are the whole process's, the
                // watchdog's and libdispatch's threads included, which
                // allocate at a rate in time that a loaded machine stretches
                // over fewer operations (`rw-queue-f` at 2 threads read
                // 0.0102 beside two test suites and two CPU burners, load 7);
                // one request per operation would read 1.
                XCTAssertLessThan(bytes, 0.01, "\(t.trial.id) allocates in its measured loop")
                XCTAssertLessThan(requests, 0.1, "\(t.trial.id) allocates in its measured loop")
            } else {
                // The overlay's block copy: the very cost the -f variants avoid.
                XCTAssertGreaterThan(requests, 0.5, "\(t.trial.id): the Swift sync overlay allocates per call")
            }
        }
    }

    func testJemallocTrialsAreSkippedWithTheInstallCommandWhenMissing() throws {
        setenv("STRESSBENCH_JEMALLOC", "/nonexistent/libjemalloc.so.2", 1)
        defer { unsetenv("STRESSBENCH_JEMALLOC") }
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 1
                ops: 1000
                allocator: [system, jemalloc]
            """)
        XCTAssertEqual(report.trials.map(\.outcome), [.passed, .skipped])
        XCTAssertEqual(report.trials[1].failure?.message,
                       "STRESSBENCH_JEMALLOC names /nonexistent/libjemalloc.so.2, which does not exist; point it at libjemalloc.so.2, or unset it")
        XCTAssertEqual(report.trials[1].failure?.missing, "jemalloc")
        XCTAssertEqual(report.exitCode, .passed, "a must-pass trial skipped beside one that ran does not fail the run")
    }
}
