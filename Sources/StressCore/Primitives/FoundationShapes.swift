#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Dispatch
import Foundation

// The rest of Foundation's and Dispatch's shapes, so that swapping a wrapper
// in through a typealias compiles with the code left as it is: `NSLocking`
// (and so Foundation's `withLock` for code generic over it), `NSLock`'s
// `lock(before:)`, `NSCondition`'s `wait(until:)`, and `DispatchWorkItem`s
// on a queue.

extension StressLock: NSLocking {
    /// Takes the lock, waiting until `limit` at the latest, as
    /// `NSLock.lock(before:)`; returns whether it took it. Inside a trial the
    /// wait is published as a wait for the lock.
    ///
    /// - Parameter limit: The latest time to wait until.
    /// - Returns: Whether the lock was taken.
    public func lock(before limit: Date) -> Bool {
        var deadline = Self.realtime(limit)
        guard Participation.active else { return pthread_mutex_timedlock(mutex, &deadline) == 0 }
        let key = Participation.key(self)
        Participation.fuzz(.beforeAcquire)
        stress_wait_begin(key, UInt64(STRESS_WAIT_LOCK))
        let took = pthread_mutex_timedlock(mutex, &deadline) == 0
        stress_wait_end()
        guard took else { return false }
        stress_hold(key)
        Participation.fuzz(.afterAcquire)
        return true
    }

    /// `limit` on the realtime clock, as `pthread_mutex_timedlock` reads it.
    static func realtime(_ limit: Date) -> timespec {
        let seconds = Swift.max(0, limit.timeIntervalSince1970)
        let whole = seconds.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
    }
}

extension StressCondition: NSLocking {
    /// ``wait(file:line:)`` until `limit` at the latest, as `NSCondition.wait(until:)`;
    /// returns false when the limit passed first.
    ///
    /// - Parameter limit: The latest time to wait until.
    /// - Returns: False when `limit` passed before a signal.
    @discardableResult
    public func wait(until limit: Date) -> Bool {
        let remaining = Swift.max(0, limit.timeIntervalSinceNow)
        let nanoseconds = UInt64(Swift.min(remaining, 1e9) * 1e9)  // at most 31 years: beyond, "for ever"
        return wait(untilNanoseconds: DispatchTime.now().uptimeNanoseconds &+ nanoseconds)
    }
}

extension StressQueue {
    /// Runs `workItem` on the queue and waits for it, as
    /// `DispatchQueue.sync(execute: DispatchWorkItem)`. A cancelled item does
    /// not run its body, and its `wait()` and `notify` still see it finish.
    /// The item's own flags are not visible to a wrapper: on a concurrent
    /// queue an item made with `.barrier` runs as a plain (shared) block, so
    /// for a barrier write `sync(flags: .barrier) { item.perform() }`.
    ///
    /// - Parameter workItem: The work item to run.
    public func sync(execute workItem: DispatchWorkItem) {
        sync { workItem.perform() }
    }

    /// Submits `workItem` to run on the queue later, as
    /// `DispatchQueue.async(execute: DispatchWorkItem)`; a `cancel()` before
    /// it runs still keeps its body from running. (Its flags: see
    /// ``sync(execute:)-(DispatchWorkItem)``.)
    ///
    /// - Parameter workItem: The work item to run.
    public func async(execute workItem: DispatchWorkItem) {
        nonisolated(unsafe) let item = workItem
        // nonisolated(unsafe): DispatchWorkItem is thread-safe (libdispatch
        // runs and cancels it from any thread) but not marked Sendable.
        async { item.perform() }
    }
}
