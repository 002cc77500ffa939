import ArgumentParser
import CStressSupport
import Dispatch
import Foundation
import StressKit
import Synchronization

/// `stressbench-dev baseline`: times a hand-written tight loop of
/// lock, increment, unlock over one lock, in this binary, with nothing of the
/// harness around it. `scripts/bench-lock-overhead.sh` sets its ns/op beside
/// the harness's figure for the same lock, to show what the harness adds; the
/// queue entries also show what the Swift `DispatchQueue.sync` overlay costs
/// against libdispatch's C `dispatch_sync_f`.
struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Time a tight lock/increment/unlock loop with no harness (for scripts/bench-lock-overhead.sh).",
        discussion: "Prints one line per lock: its name, the iterations, and the best ns/op over the rounds. The loops run beside a second, idle thread, as a trial does: glibc takes a cheaper, non-atomic path for pthread mutexes while a process has only one thread.",
        aliases: ["_baseline"]  // its name as a hidden `stressbench` command, which older builds answer to
    )

    @Argument(help: ArgumentHelp("Locks to time, or 'all': \(BaselineLoop.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "lock"))
    var locks: [String] = ["all"]

    @Option(help: "Iterations per round.")
    var iterations = 10_000_000

    @Option(help: "Rounds; the fastest is reported (the others absorb interruptions, and the first warms up unless --warmup-rounds does).")
    var rounds = 5

    @Option(help: ArgumentHelp(
        "Rounds run first and not reported (warm-up).",
        discussion: "With --warmup-rounds 1 --rounds 1 the figure is one run after a warm-up, as the harness's own trial is: a fair partner for it (the best of several rounds is biased fast on a noisy host)."
    ))
    var warmupRounds = 0

    @Option(help: ArgumentHelp(
        "Then keep warming up (whole rounds) until this many milliseconds have passed since the command started.",
        discussion: "Counted from the start of the command, not of each loop: with --warmup-ms 200 the first loop's reported round starts about as long after the process does as a trial's measured window does after its 200 ms warm-up, and a later loop's round after its own --warmup-rounds. That matters on a shared VM, where a process that has just started can run faster than it does a few hundred milliseconds later (on the reference VM, 4.7% in the medians of 20 runs of the same loop)."
    ))
    var warmupMs = 0

    func validate() throws {
        guard iterations > 0, rounds > 0 else { throw ValidationError("--iterations and --rounds must be at least 1") }
        guard warmupRounds >= 0 else { throw ValidationError("--warmup-rounds must be at least 0") }
        guard (0...3_600_000).contains(warmupMs) else { throw ValidationError("--warmup-ms must be from 0 to 3600000 (an hour)") }
        for name in locks where name != "all" && BaselineLoop(rawValue: name) == nil {
            throw ValidationError("unknown lock '\(name)'; expected one of \(BaselineLoop.allCases.map(\.rawValue).joined(separator: ", ")) or all")
        }
    }

    func run() throws {
        let selected = locks.contains("all") ? BaselineLoop.allCases : locks.compactMap(BaselineLoop.init(rawValue:))
        let started = MonotonicClock.now()
        startIdleThread()
        // Said on standard error, so a reader of the figures (and a test) can
        // see which lock paths they are of; the scripts read standard output.
        switch stress_libc_single_threaded() {
        case 0: FileHandle.standardError.write(Data("baseline: 2 threads in the process; the C library's single-threaded lock paths are off\n".utf8))
        case 1: FileHandle.standardError.write(Data("baseline: warning: the C library still runs this process as single-threaded; pthread figures are of its cheaper lock paths\n".utf8))
        default: FileHandle.standardError.write(Data("baseline: 2 threads in the process\n".utf8))
        }
        for loop in selected {
            for _ in 0..<warmupRounds { _ = loop.time(iterations: iterations) }
            while MonotonicClock.now() &- started < UInt64(warmupMs) * 1_000_000 { _ = loop.time(iterations: iterations) }
            let best = (0..<rounds).map { _ in loop.time(iterations: iterations) }.min()!
            let nsPerOp = Double(best) / Double(iterations)
            print("\(loop.rawValue.padding(toLength: 24, withPad: " ", startingAt: 0)) \(iterations) iterations  \(String(format: "%.2f", nsPerOp)) ns/op")
        }
    }
}

/// Starts a thread that does nothing, for as long as the process lives, so
/// that the hand loops run in a process with more than one thread, as every
/// trial's child process does (its watchdog) and as any program that needs a
/// lock does. glibc (2.34 and later) locks and unlocks a private
/// `pthread_mutex_t` without an atomic instruction while the process has only
/// one thread, a path no program that shares the lock can take: the
/// `pthread-mutex` and `nslock` loops timed there would time a cheaper lock
/// than the harness's (glibc 2.36 under callgrind: 53 instructions per lock
/// and unlock in a process with one thread, 55 with two).
func startIdleThread() {
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let created = pthread_create(&thread, nil, { _ in
        while true { pause() }
    }, nil)
    precondition(created == 0, "pthread_create failed: \(created)")
    #if canImport(Glibc)
    pthread_detach(thread)
    #else
    if let thread { pthread_detach(thread) }
    #endif
}

/// One hand-written loop: the lock used directly, as an application would,
/// around an increment of a counter in memory.
enum BaselineLoop: String, CaseIterable {
    /// The increment and one call the optimiser cannot see into (so it cannot
    /// fold the loop away): the loop's own cost.
    case none
    /// `pthread_mutex_lock` / `pthread_mutex_unlock` (normal type).
    case pthreadMutex = "pthread-mutex"
    /// The same, with the increment behind one indirect call (a closure the
    /// optimiser cannot see into), as a harness whose workloads are plugged in
    /// must make at least once per operation: the floor for such a harness.
    case pthreadMutexIndirect = "pthread-mutex-indirect"
    /// `Synchronization.Mutex.withLock`.
    case mutex
    /// Foundation `NSLock.lock()` / `unlock()`.
    case nslock
    /// The `pthread-mutex` loop with the three clock reads a timed lock
    /// operation needs (its start, the moment it acquired, its end) on the
    /// CPU's counter (`stress_ticks`, the harness's clock where the counter is
    /// trustworthy), their differences summed and nothing recorded: what timing
    /// every operation costs at the least, measured where it is paid.
    case pthreadMutexTimed = "pthread-mutex-timed"
    /// The `mutex` loop with the same three clock reads.
    case mutexTimed = "mutex-timed"
    /// The `nslock` loop with the same three clock reads.
    case nslockTimed = "nslock-timed"
    /// `DispatchQueue.sync` on a serial queue (the Swift overlay), with a closure
    /// that returns a value, as the `serial-queue` strategy calls it (the
    /// generic `sync<T>(execute:)`).
    case serialQueue = "serial-queue"
    /// `DispatchQueue.sync` with a closure returning `Void`: the overlay's
    /// non-generic `sync(execute:)`, a cheaper path than the generic one.
    case serialQueueVoid = "serial-queue-void"
    /// `dispatch_sync_f` on a serial queue (the C function).
    case serialQueueF = "serial-queue-f"
    /// `DispatchQueue.sync` on a concurrent queue, returning a value: the reader path.
    case rwQueueRead = "rw-queue-read"
    /// `dispatch_sync_f` on a concurrent queue.
    case rwQueueFRead = "rw-queue-f-read"
    /// `DispatchQueue.sync(flags: .barrier)`, returning a value: the writer path.
    case rwQueueBarrier = "rw-queue-barrier"
    /// `dispatch_barrier_sync_f`.
    case rwQueueFBarrier = "rw-queue-f-barrier"
    /// A task awaiting an actor-isolated method that increments the counter,
    /// as a hand-written async loop would (the `actor` strategy's partner).
    case actor

    /// Runs `iterations` lock/increment/unlock rounds and returns the elapsed
    /// nanoseconds. Traps if the counter is not exactly `iterations` after.
    func time(iterations n: Int) -> UInt64 {
        let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        counter.initialize(to: 0)
        defer { counter.deallocate() }
        // Handing the address to code the optimiser cannot see makes every
        // increment a real load and store, as in the harness's counter.
        escape(counter)
        let elapsed: UInt64
        switch self {
        case .none:
            elapsed = timed { for _ in 0..<n { counter.pointee &+= 1; escape(counter) } }
        case .pthreadMutex:
            let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(lock, nil)
            elapsed = timed {
                for _ in 0..<n {
                    pthread_mutex_lock(lock)
                    counter.pointee &+= 1
                    pthread_mutex_unlock(lock)
                }
            }
            pthread_mutex_destroy(lock)
            lock.deallocate()
        case .pthreadMutexIndirect:
            let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(lock, nil)
            let increment = opaqueIncrement()
            elapsed = timed {
                for _ in 0..<n {
                    pthread_mutex_lock(lock)
                    increment(counter)
                    pthread_mutex_unlock(lock)
                }
            }
            pthread_mutex_destroy(lock)
            lock.deallocate()
        case .mutex:
            let lock = Mutex<Void>(())
            elapsed = timed { for _ in 0..<n { lock.withLock { _ in counter.pointee &+= 1 } } }
        case .nslock:
            let lock = NSLock()
            elapsed = timed {
                for _ in 0..<n {
                    lock.lock()
                    counter.pointee &+= 1
                    lock.unlock()
                }
            }
        case .pthreadMutexTimed:
            let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(lock, nil)
            elapsed = timedWithClockReads(n, counter) { body in
                pthread_mutex_lock(lock)
                body()
                pthread_mutex_unlock(lock)
            }
            pthread_mutex_destroy(lock)
            lock.deallocate()
        case .mutexTimed:
            let lock = Mutex<Void>(())
            elapsed = timedWithClockReads(n, counter) { body in lock.withLock { _ in body() } }
        case .nslockTimed:
            let lock = NSLock()
            elapsed = timedWithClockReads(n, counter) { body in
                lock.lock()
                body()
                lock.unlock()
            }
        case .serialQueueVoid:
            let queue = DispatchQueue(label: "baseline.serial")
            elapsed = timed { for _ in 0..<n { queue.sync { counter.pointee &+= 1 } } }
        case .serialQueue, .rwQueueRead, .rwQueueBarrier:
            let queue = self == .serialQueue
                ? DispatchQueue(label: "baseline.serial") : DispatchQueue(label: "baseline.concurrent", attributes: .concurrent)
            let increment = { () -> Int in
                counter.pointee &+= 1
                return counter.pointee
            }
            if self == .rwQueueBarrier {
                elapsed = timed { for _ in 0..<n { escape(queue.sync(flags: .barrier, execute: increment)) } }
            } else {
                elapsed = timed { for _ in 0..<n { escape(queue.sync(execute: increment)) } }
            }
        case .serialQueueF, .rwQueueFRead, .rwQueueFBarrier:
            let queue = stress_dispatch_queue_create("baseline.f", self == .serialQueueF ? 0 : 1)
            let increment: stress_dispatch_work_t = { $0!.assumingMemoryBound(to: Int.self).pointee &+= 1 }
            if self == .rwQueueFBarrier {
                elapsed = timed { for _ in 0..<n { stress_dispatch_barrier_sync_f(queue, counter, increment) } }
            } else {
                elapsed = timed { for _ in 0..<n { stress_dispatch_sync_f(queue, counter, increment) } }
            }
            stress_dispatch_queue_release(queue)
        case .actor:
            elapsed = BaselineActorLoop.time(iterations: n, counter: counter)
        }
        precondition(counter.pointee == n, "\(rawValue): counted \(counter.pointee) of \(n)")
        return elapsed
    }

    /// `n` rounds of a clock read, then `section` (the lock held around what it
    /// is given) running a clock read and the increment of `counter`, then a
    /// clock read, timed as a whole. The reads' differences (service time and
    /// acquire wait, as the harness takes them) are summed and the sums
    /// consumed, so that no read can be dropped. Inlined with its closures, so
    /// the loop has no calls but the lock's own.
    @inline(__always)
    private func timedWithClockReads(
        _ n: Int, _ counter: UnsafeMutablePointer<Int>, section: (() -> Void) -> Void
    ) -> UInt64 {
        var service: UInt64 = 0, acquire: UInt64 = 0
        let elapsed = timed {
            for _ in 0..<n {
                let start = stress_ticks()
                var acquired: UInt64 = 0
                section {
                    acquired = stress_ticks()
                    counter.pointee &+= 1
                }
                let end = stress_ticks()
                service &+= end &- start
                acquire &+= acquired &- start
            }
        }
        escape(Int(truncatingIfNeeded: service &+ acquire))
        return elapsed
    }

    private func timed(_ loop: () -> Void) -> UInt64 {
        let start = MonotonicClock.now()
        loop()
        return MonotonicClock.now() &- start
    }
}

/// Makes `pointer` visible to code the optimiser cannot see through.
@inline(never) @_optimize(none)
func escape(_ pointer: UnsafeMutablePointer<Int>) {}

/// Consumes a value where the optimiser cannot see it.
@inline(never) @_optimize(none)
func escape(_ value: Int) {}

/// An increment the optimiser cannot see into: calling it is an indirect call.
@inline(never) @_optimize(none)
private func opaqueIncrement() -> (UnsafeMutablePointer<Int>) -> Void {
    { $0.pointee &+= 1 }
}
