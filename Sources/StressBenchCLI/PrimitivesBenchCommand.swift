import ArgumentParser
import CStressSupport
import Dispatch
import Foundation
import StressKit
import Synchronization

/// `stressbench _primitives` (hidden): what the harness-aware primitives and
/// the pthread interposer cost outside a trial, uncontended, beside the
/// plain primitives they stand for. `scripts/bench-primitives.sh` runs it
/// plain and with `libStressInterpose.so` preloaded, and with jemalloc
/// preloaded to count the bytes each pair allocates.
struct PrimitivesBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_primitives",
        abstract: "Time plain primitives beside their harness-aware wrappers, outside a trial (for scripts/bench-primitives.sh).",
        discussion: "Prints one line per pair: its name, ns per pair (best of the rounds), and bytes allocated per pair when jemalloc is this process's allocator ('unavailable' otherwise). A pair is one lock and unlock, wait and signal, or sync.",
        shouldDisplay: false
    )

    @Option(help: "Iterations per round.")
    var iterations = 5_000_000

    @Option(help: "Rounds; the fastest is reported.")
    var rounds = 5

    func validate() throws {
        guard iterations > 0, rounds > 0 else { throw ValidationError("--iterations and --rounds must be at least 1") }
    }

    func run() throws {
        startIdleThread()
        for loop in PrimitiveLoop.allCases {
            _ = loop.time(iterations)  // warm-up
            var best = UInt64.max, bytes: UInt64?
            for _ in 0..<rounds {
                var before: UInt64 = 0, after: UInt64 = 0
                let counted = stress_jemalloc_thread_allocated(&before) == 0
                let elapsed = loop.time(iterations)
                if counted, stress_jemalloc_thread_allocated(&after) == 0 { bytes = Swift.max(bytes ?? 0, after &- before) }
                best = Swift.min(best, elapsed)
            }
            let perPair = bytes.map { String(format: "%.3f", Double($0) / Double(iterations)) } ?? "unavailable"
            print("\(loop.rawValue.padding(toLength: 26, withPad: " ", startingAt: 0)) \(String(format: "%7.2f", Double(best) / Double(iterations))) ns/pair  \(perPair) bytes/pair")
        }
    }
}

/// One uncontended loop: a plain primitive, or its harness-aware wrapper.
enum PrimitiveLoop: String, CaseIterable {
    case nslock, stressLock = "stress-lock"
    case nsconditionLock = "nscondition-lock", stressConditionLock = "stress-condition-lock"
    case mutex, stressMutex = "stress-mutex"
    case semaphore, stressSemaphore = "stress-semaphore"
    case queueSync = "queue-sync", stressQueueSync = "stress-queue-sync"
    case fuzzPoint = "fuzz-point"

    /// Runs `n` pairs around an increment; returns the elapsed nanoseconds.
    func time(_ n: Int) -> UInt64 {
        let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        counter.initialize(to: 0)
        defer { counter.deallocate() }
        escape(counter)
        let start = MonotonicClock.now()
        switch self {
        case .nslock:
            let lock = NSLock()
            for _ in 0..<n { lock.lock(); counter.pointee &+= 1; lock.unlock() }
        case .stressLock:
            let lock = StressLock()
            for _ in 0..<n { lock.lock(); counter.pointee &+= 1; lock.unlock() }
        case .nsconditionLock:
            let condition = NSCondition()
            for _ in 0..<n { condition.lock(); counter.pointee &+= 1; condition.unlock() }
        case .stressConditionLock:
            let condition = StressCondition()
            for _ in 0..<n { condition.lock(); counter.pointee &+= 1; condition.unlock() }
        case .mutex:
            let mutex = Mutex<Int>(0)
            for _ in 0..<n { mutex.withLock { $0 &+= 1 } }
            counter.pointee = mutex.withLock { $0 }
        case .stressMutex:
            let mutex = StressMutex<Int>(0)
            for _ in 0..<n { mutex.withLock { $0 &+= 1 } }
            counter.pointee = mutex.withLock { $0 }
        case .semaphore:
            let semaphore = DispatchSemaphore(value: 1)
            for _ in 0..<n { semaphore.wait(); counter.pointee &+= 1; semaphore.signal() }
        case .stressSemaphore:
            let semaphore = StressSemaphore(value: 1)
            for _ in 0..<n { semaphore.wait(); counter.pointee &+= 1; _ = semaphore.signal() }
        case .queueSync:
            let queue = DispatchQueue(label: "bench.plain")
            for _ in 0..<n { queue.sync { counter.pointee &+= 1 } }
        case .stressQueueSync:
            let queue = StressQueue(label: "bench.wrapped")
            for _ in 0..<n { queue.sync { counter.pointee &+= 1 } }
        case .fuzzPoint:
            for _ in 0..<n { StressKit.fuzzPoint(); counter.pointee &+= 1 }
        }
        let elapsed = MonotonicClock.now() &- start
        precondition(counter.pointee == n, "\(rawValue): counted \(counter.pointee) of \(n)")
        return elapsed
    }
}
