#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// A condition in the shape of Foundation's `NSCondition` (a lock with
/// `wait()`, `wait(until:)`, `signal()`, `broadcast()`) that a trial can see,
/// for where interposition cannot reach (see ``StressLock``). Waiting
/// publishes that the thread waits to be signalled and no longer holds the
/// lock; the fuzz points are around waiting and signalling as well as the lock's.
public final class StressCondition: @unchecked Sendable {
    // @unchecked: see StressLock.
    @usableFromInline let lockWord: StressLock
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A condition, optionally named for stall reports ("the condition
    /// 'ready'" and "the lock of condition 'ready'"). Unnamed, a report calls
    /// it by its type and where it was made ("the StressCondition made at
    /// Jobs/Board.swift:30", "the lock of the StressCondition made at ...");
    /// `file` and `line` are the caller's, filled in by the compiler.
    ///
    /// - Parameters:
    ///   - name: How stall reports name it ("the condition 'name'"); nil for its type and place.
    ///   - file: The file that makes it (the compiler fills it in).
    ///   - line: The line that makes it (the compiler fills it in).
    public init(name: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        lockWord = StressLock(unregistered: ())
        condition = Self.makeCondition()
        if let name {
            PrimitiveNames.register(Participation.key(lockWord), "the lock of condition '\(name)'")
            PrimitiveNames.register(Participation.key(self), "the condition '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(lockWord), madeAs: "lock of the StressCondition", file: file, line: line)
            PrimitiveNames.register(Participation.key(self), madeAs: "StressCondition", file: file, line: line)
        }
    }

    /// A condition on a lock of the caller's, as pthread code writes it: one
    /// mutex, several conditions (`notEmpty` and `notFull` over one queue's
    /// lock). ``lock()``, ``unlock()`` and ``withLock(_:)`` take that lock,
    /// and a wait gives it up while waiting. Unnamed, a report calls it by its
    /// type and where it was made.
    ///
    /// - Parameters:
    ///   - lock: The lock the condition's waits give up and take back.
    ///   - name: How stall reports name it ("the condition 'name'"); nil for its type and place.
    ///   - file: The file that makes it (the compiler fills it in).
    ///   - line: The line that makes it (the compiler fills it in).
    public init(lock: StressLock, name: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        lockWord = lock
        condition = Self.makeCondition()
        if let name {
            PrimitiveNames.register(Participation.key(self), "the condition '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(self), madeAs: "StressCondition", file: file, line: line)
        }
    }

    /// A pthread condition on the monotonic clock (the clock
    /// ``wait(untilNanoseconds:)``'s deadlines are in).
    private static func makeCondition() -> UnsafeMutablePointer<pthread_cond_t> {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        return condition
    }

    deinit {
        PrimitiveNames.unregister(Participation.key(self))
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Takes the condition's lock (`NSLocking`'s shape; a call written
    /// `lock()` takes ``lock(file:line:)``).
    @inlinable @_disfavoredOverload public func lock() { lockWord.lock(file: #fileID, line: #line) }
    /// Gives the condition's lock back (`NSLocking`'s shape).
    @inlinable @_disfavoredOverload public func unlock() { lockWord.unlock(file: #fileID, line: #line) }
    /// Takes the condition's lock.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    @inlinable public func lock(file: StaticString = #fileID, line: UInt = #line) { lockWord.lock(file: file, line: line) }
    /// Gives the condition's lock back.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    @inlinable public func unlock(file: StaticString = #fileID, line: UInt = #line) { lockWord.unlock(file: file, line: line) }
    /// Runs `body` holding the condition's lock.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    ///   - body: The work to do holding the condition's lock.
    /// - Returns: What `body` returns.
    @inlinable public func withLock<R>(file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> R) rethrows -> R {
        try lockWord.withLock(file: file, line: line, body)
    }

    /// Releases the lock and waits to be signalled, then takes the lock again
    /// (called holding the lock). As with any condition, it may return without
    /// a signal: wait in a `while` loop on the predicate.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    public func wait(file: StaticString = #fileID, line: UInt = #line) {
        if let controlled = Participation.controlled {
            Participation.locate(file: file, line: line)
            _ = controlledWait(controlled, timed: false)
            return
        }
        waiting { pthread_cond_wait(condition, lockWord.mutex) }
    }

    /// ``wait(file:line:)`` until `deadline` (`DispatchTime` nanoseconds, the monotonic
    /// clock) at the latest; returns false when the deadline passed.
    ///
    /// - Parameters:
    ///   - deadline: The latest time to wait until, in `DispatchTime.now().uptimeNanoseconds` terms.
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    /// - Returns: False when the deadline passed before a signal.
    @discardableResult
    public func wait(untilNanoseconds deadline: UInt64, file: StaticString = #fileID, line: UInt = #line) -> Bool {
        if let controlled = Participation.controlled {
            Participation.locate(file: file, line: line)
            return controlledWait(controlled, timed: true)
        }
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        var result: Int32 = 0
        waiting { result = pthread_cond_timedwait(condition, lockWord.mutex, &time) }
        return result == 0
    }

    /// Wakes one waiter.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    public func signal(file: StaticString = #fileID, line: UInt = #line) {
        Participation.fuzz(.beforeRelease)
        Participation.locate(file: file, line: line)
        Participation.controlled?.signal(Participation.key(self), all: false)
        pthread_cond_signal(condition)
        Participation.fuzz(.afterRelease)
    }

    /// Wakes every waiter.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    public func broadcast(file: StaticString = #fileID, line: UInt = #line) {
        Participation.fuzz(.beforeRelease)
        Participation.locate(file: file, line: line)
        Participation.controlled?.signal(Participation.key(self), all: true)
        pthread_cond_broadcast(condition)
        Participation.fuzz(.afterRelease)
    }

    /// A wait under control: the lock is given up for real and in the
    /// model, the worker waits in the model for a signal (a timed wait's
    /// deadline is virtual: it passes when the policy chooses so, or when
    /// nothing else can run),
    /// and takes the lock back. Returns false when the deadline ended it.
    /// Should control end meanwhile, the wait ends as a spurious wake-up,
    /// which every caller must tolerate.
    private func controlledWait(_ controlled: ControlledWorker, timed: Bool) -> Bool {
        let lockKey = Participation.key(lockWord)
        Participation.fuzz(.beforeRelease)
        stress_unhold(lockKey)
        stress_wait_begin(Participation.key(self), UInt64(STRESS_WAIT_CONDITION))
        pthread_mutex_unlock(lockWord.mutex)
        let signalled = controlled.wait(on: Participation.key(self), releasing: lockKey, timed: timed)
        pthread_mutex_lock(lockWord.mutex)
        stress_wait_end()
        stress_hold(lockKey)
        Participation.fuzz(.afterAcquire)
        return signalled ?? true
    }

    private func waiting(_ wait: () -> Void) {
        guard Participation.active else { return wait() }
        let lockKey = Participation.key(lockWord)
        Participation.fuzz(.beforeRelease)
        stress_unhold(lockKey)
        stress_wait_begin(Participation.key(self), UInt64(STRESS_WAIT_CONDITION))
        wait()
        stress_wait_end()
        stress_hold(lockKey)
        Participation.fuzz(.afterAcquire)
    }
}
