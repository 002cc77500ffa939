import ArgumentParser
import CStressSupport
import Dispatch
import Foundation
import StressKit
import Synchronization

/// `stressbench-dev primitives`: what the harness-aware primitives and
/// the pthread interposer cost outside a trial, uncontended, beside the
/// plain primitives they stand for. `scripts/bench-primitives.sh` runs it
/// plain and with `libStressInterpose.so` preloaded, and with jemalloc
/// preloaded to count the bytes each pair allocates.
struct PrimitivesBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "primitives",
        abstract: "Time plain primitives beside their harness-aware wrappers, outside a trial (for scripts/bench-primitives.sh).",
        discussion: "Prints one line per pair: its name, ns per pair (best of the rounds), and bytes allocated per pair when jemalloc is this process's allocator ('unavailable' otherwise). A pair is one lock and unlock, wait and signal, sync, async (its block run, the last one waited for), or once-token call after the first.",
        aliases: ["_primitives"]  // its name as a hidden `stressbench` command, which older builds answer to
    )

    @Option(help: "Iterations per round.")
    var iterations = 5_000_000

    @Option(help: "Rounds; the fastest is reported.")
    var rounds = 5

    @Option(help: ArgumentHelp(
        "Instead of best-of rounds: time each wrapper against its plain primitive this many times, alternating (order flipped every time), and print the median and quartiles of the per-alternation difference.",
        discussion: "For differences smaller than the run-to-run noise of either loop alone (the queue's ~130 ns pair moves by 20 ns between rounds): the machine's drift hits both sides of each alternation alike."))
    var alternations = 0

    @Option(help: ArgumentHelp("Only these loops (by name, comma-separated), as `alternations` only these wrappers.", valueName: "names"))
    var only: String?

    /// The loops `--only` names (every one without it) that this platform
    /// can run.
    var selected: [PrimitiveLoop] {
        let names = only.map { Set($0.split(separator: ",").map(String.init)) }
        return PrimitiveLoop.allCases.filter { names?.contains($0.rawValue) ?? true }.filter(\.isAvailable)
    }

    func validate() throws {
        guard iterations > 0, rounds > 0 else { throw ValidationError("--iterations and --rounds must be at least 1") }
        guard alternations >= 0 else { throw ValidationError("--alternations must be 0 or more") }
        if let only {
            let known = Set(PrimitiveLoop.allCases.map(\.rawValue))
            let unknown = only.split(separator: ",").map(String.init).filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw ValidationError("--only: unknown loop(s) \(unknown.joined(separator: ", ")); the loops are \(known.sorted().joined(separator: ", "))")
            }
        }
    }

    func run() throws {
        startIdleThread()
        for loop in PrimitiveLoop.allCases where !loop.isAvailable {
            print("\(loop.rawValue.padding(toLength: 26, withPad: " ", startingAt: 0)) unavailable (pthread_mutex_lock cannot be looked up in this process)")
        }
        if alternations > 0 { return runAlternating() }
        for loop in selected {
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

extension PrimitivesBenchCommand {
    /// Each wrapper against its plain partner, alternating: the difference
    /// per alternation (wrapper minus plain, ns per pair), its median and
    /// quartiles.
    func runAlternating() {
        print("wrapper                    plain ns  wrapper ns  added ns: median (quartiles), \(alternations) alternations of \(iterations)")
        for (plain, wrapper) in PrimitiveLoop.pairs where selected.contains(wrapper) && plain.isAvailable {
            _ = plain.time(iterations)
            _ = wrapper.time(iterations)
            var differences: [Double] = [], plainTimes: [Double] = [], wrapperTimes: [Double] = []
            for i in 0..<alternations {
                let first = i % 2 == 0 ? plain : wrapper, second = i % 2 == 0 ? wrapper : plain
                let a = Double(first.time(iterations)) / Double(iterations)
                let b = Double(second.time(iterations)) / Double(iterations)
                let (p, w) = i % 2 == 0 ? (a, b) : (b, a)
                plainTimes.append(p)
                wrapperTimes.append(w)
                differences.append(w - p)
            }
            func quantile(_ values: [Double], _ q: Double) -> Double {
                let sorted = values.sorted()
                let position = q * Double(sorted.count - 1)
                let low = Int(position.rounded(.down)), high = Int(position.rounded(.up))
                return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
            }
            let line = String(format: "%7.2f     %7.2f    %+6.2f (%+.2f to %+.2f)",
                              quantile(plainTimes, 0.5), quantile(wrapperTimes, 0.5), quantile(differences, 0.5),
                              quantile(differences, 0.25), quantile(differences, 0.75))
            print("\(wrapper.rawValue.padding(toLength: 26, withPad: " ", startingAt: 0)) \(line)")
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
    case concurrentSync = "concurrent-sync", stressConcurrentSync = "stress-concurrent-sync"
    case barrierSync = "barrier-sync", stressBarrierSync = "stress-barrier-sync"
    case queueAsync = "queue-async", stressQueueAsync = "stress-queue-async"
    case once, stressOnce = "stress-once"
    case rwlock
    case pthreadMutexGlibc = "pthread-mutex-glibc", pthreadMutex = "pthread-mutex"
    case fuzzPoint = "fuzz-point"

    /// Each wrapper and the plain primitive it stands for. (`rwlock` has no
    /// wrapper: only the interposer sees it, so it is compared across the
    /// plain and the interposed run.)
    static let pairs: [(plain: PrimitiveLoop, wrapper: PrimitiveLoop)] = [
        (.nslock, .stressLock), (.nsconditionLock, .stressConditionLock), (.mutex, .stressMutex),
        (.semaphore, .stressSemaphore), (.queueSync, .stressQueueSync), (.concurrentSync, .stressConcurrentSync),
        (.barrierSync, .stressBarrierSync), (.queueAsync, .stressQueueAsync), (.once, .stressOnce),
        // Not a wrapper: a pthread mutex through glibc's own names beside the
        // public ones, which the interposer replaces when it is preloaded.
        // Without it the two are the same calls (a difference near 0 says
        // the method is fair); with it, the difference is what interposition
        // adds to every lock and unlock of the process outside a trial.
        (.pthreadMutexGlibc, .pthreadMutex),
    ]

    /// Whether this platform can run the loop: the pthread pair needs the
    /// C library's own calls looked up by name (glibc).
    var isAvailable: Bool {
        guard self == .pthreadMutex || self == .pthreadMutexGlibc else { return true }
        var lock: stress_mutex_call_t?, unlock: stress_mutex_call_t?
        return stress_mutex_calls(1, &lock, &unlock) == 0
    }

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
        case .concurrentSync:
            let queue = DispatchQueue(label: "bench.plain.concurrent", attributes: .concurrent)
            for _ in 0..<n { queue.sync { counter.pointee &+= 1 } }
        case .stressConcurrentSync:
            let queue = StressQueue(label: "bench.wrapped.concurrent", attributes: .concurrent)
            for _ in 0..<n { queue.sync { counter.pointee &+= 1 } }
        case .barrierSync:
            let queue = DispatchQueue(label: "bench.plain.barrier", attributes: .concurrent)
            for _ in 0..<n { queue.sync(flags: .barrier) { counter.pointee &+= 1 } }
        case .stressBarrierSync:
            let queue = StressQueue(label: "bench.wrapped.barrier", attributes: .concurrent)
            for _ in 0..<n { queue.sync(flags: .barrier) { counter.pointee &+= 1 } }
        case .queueAsync:
            // nonisolated(unsafe): the serial queue runs the blocks one at a
            // time, and the final sync orders them before the count is read;
            // that ordering is the queue's to provide.
            nonisolated(unsafe) let shared = counter
            let queue = DispatchQueue(label: "bench.plain.async")
            for _ in 0..<n { queue.async { shared.pointee &+= 1 } }
            queue.sync {}
        case .stressQueueAsync:
            nonisolated(unsafe) let shared = counter  // as for `queueAsync`
            let queue = StressQueue(label: "bench.wrapped.async")
            for _ in 0..<n { queue.async { shared.pointee &+= 1 } }
            queue.sync {}
        case .once:
            // What a once-token is made of where the platform has none to
            // call (a lazy `static let` is `swift_once`, the same shape): an
            // acquiring load of a flag, and a lock only while it is unset.
            let done = Atomic<Bool>(false)
            let lock = NSLock()
            for _ in 0..<n {
                if !done.load(ordering: .acquiring) {
                    lock.lock()
                    if !done.load(ordering: .relaxed) { done.store(true, ordering: .releasing) }
                    lock.unlock()
                }
                counter.pointee &+= 1
            }
        case .stressOnce:
            let once = StressOnce()
            for _ in 0..<n { once.run {}; counter.pointee &+= 1 }
        case .rwlock:
            let rwlock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
            pthread_rwlock_init(rwlock, nil)
            for _ in 0..<n { pthread_rwlock_wrlock(rwlock); counter.pointee &+= 1; pthread_rwlock_unlock(rwlock) }
            pthread_rwlock_destroy(rwlock)
            rwlock.deallocate()
        case .pthreadMutexGlibc, .pthreadMutex:
            // Both through function pointers, so the two differ only in which
            // functions those are.
            var lock: stress_mutex_call_t?, unlock: stress_mutex_call_t?
            guard stress_mutex_calls(self == .pthreadMutexGlibc ? 1 : 0, &lock, &unlock) == 0, let lock, let unlock else {
                preconditionFailure("run only where isAvailable")
            }
            let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(mutex, nil)
            for _ in 0..<n { _ = lock(mutex); counter.pointee &+= 1; _ = unlock(mutex) }
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        case .fuzzPoint:
            for _ in 0..<n { StressKit.fuzzPoint(); counter.pointee &+= 1 }
        }
        let elapsed = MonotonicClock.now() &- start
        precondition(counter.pointee == n, "\(rawValue): counted \(counter.pointee) of \(n)")
        return elapsed
    }
}
