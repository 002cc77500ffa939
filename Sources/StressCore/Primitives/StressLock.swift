#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// A lock in the shape of Foundation's `NSLock` (`lock()`, `unlock()`,
/// `try()`, `withLock`) that a trial can see. In a trial's child process a
/// plain `NSLock` is seen too, when the plan says `interpose: true` (its
/// pthread calls are interposed); this wrapper is for where that cannot
/// reach: in-process runs, and platforms without interposition. Outside a
/// trial it is a pthread mutex plus one thread-local check.
public final class StressLock: @unchecked Sendable {
    // @unchecked: the mutex lives in memory of its own, and every access is
    // through it, which is its purpose.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock, optionally named for stall reports ("the lock 'tally'").
    /// Unnamed, a report calls it by its type and where it was made ("the
    /// StressLock made at Ledger/Ledger.swift:12"): `file` and `line` are
    /// the caller's, filled in by the compiler, never passed by hand.
    ///
    /// - Parameters:
    ///   - name: How stall reports name it ("the lock 'name'"); nil for its type and place.
    ///   - file: The file that makes it (the compiler fills it in).
    ///   - line: The line that makes it (the compiler fills it in).
    public convenience init(name: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        self.init(unregistered: ())
        if let name {
            PrimitiveNames.register(Participation.key(self), "the lock '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(self), madeAs: "StressLock", file: file, line: line)
        }
    }

    /// A lock its owner names (a ``StressCondition``'s).
    init(unregistered: Void) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        PrimitiveNames.unregister(Participation.key(self))
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it.
    @inlinable
    public func lock() {
        guard stress_participant() != nil else {
            pthread_mutex_lock(mutex)
            return
        }
        lockInTrial()
    }

    @usableFromInline
    func lockInTrial() {
        let key = Participation.key(self)
        Participation.fuzz(.beforeAcquire)
        stress_wait_begin(key, UInt64(STRESS_WAIT_LOCK))
        // Under control the model decides who waits; once it grants the
        // lock the real one is free, so this never blocks in the kernel.
        Participation.controlled?.acquire(key)
        pthread_mutex_lock(mutex)
        stress_wait_end()
        stress_hold(key)
        Participation.fuzz(.afterAcquire)
    }

    /// Takes the lock if it is free; returns whether it did.
    ///
    /// - Returns: Whether the lock was taken.
    public func `try`() -> Bool {
        if let controlled = Participation.controlled {
            // A point, so that a loop of tries can be switched away from.
            Participation.fuzz(.beforeAcquire)
            guard controlled.tryAcquire(Participation.key(self)) else { return false }
        }
        guard pthread_mutex_trylock(mutex) == 0 else { return false }
        if Participation.active { stress_hold(Participation.key(self)) }
        return true
    }

    /// Gives the lock back.
    @inlinable
    public func unlock() {
        guard stress_participant() != nil else {
            pthread_mutex_unlock(mutex)
            return
        }
        unlockInTrial()
    }

    @usableFromInline
    func unlockInTrial() {
        Participation.fuzz(.beforeRelease)
        stress_unhold(Participation.key(self))
        pthread_mutex_unlock(mutex)
        Participation.controlled?.release(Participation.key(self))
        Participation.fuzz(.afterRelease)
    }

    /// Runs `body` holding the lock.
    ///
    /// - Parameter body: The work to do holding the lock.
    /// - Returns: What `body` returns.
    @inlinable
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

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
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        if let name {
            PrimitiveNames.register(Participation.key(lockWord), "the lock of condition '\(name)'")
            PrimitiveNames.register(Participation.key(self), "the condition '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(lockWord), madeAs: "lock of the StressCondition", file: file, line: line)
            PrimitiveNames.register(Participation.key(self), madeAs: "StressCondition", file: file, line: line)
        }
    }

    deinit {
        PrimitiveNames.unregister(Participation.key(self))
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Takes the condition's lock.
    @inlinable public func lock() { lockWord.lock() }
    /// Gives the condition's lock back.
    @inlinable public func unlock() { lockWord.unlock() }
    /// Runs `body` holding the condition's lock.
    ///
    /// - Parameter body: The work to do holding the condition's lock.
    /// - Returns: What `body` returns.
    @inlinable public func withLock<R>(_ body: () throws -> R) rethrows -> R { try lockWord.withLock(body) }

    /// Releases the lock and waits to be signalled, then takes the lock again
    /// (called holding the lock). As with any condition, it may return without
    /// a signal: wait in a `while` loop on the predicate.
    public func wait() {
        if let controlled = Participation.controlled {
            _ = controlledWait(controlled, timed: false)
            return
        }
        waiting { pthread_cond_wait(condition, lockWord.mutex) }
    }

    /// ``wait()`` until `deadline` (`DispatchTime` nanoseconds, the monotonic
    /// clock) at the latest; returns false when the deadline passed.
    ///
    /// - Parameter deadline: The latest time to wait until, in `DispatchTime.now().uptimeNanoseconds` terms.
    /// - Returns: False when the deadline passed before a signal.
    @discardableResult
    public func wait(untilNanoseconds deadline: UInt64) -> Bool {
        if let controlled = Participation.controlled { return controlledWait(controlled, timed: true) }
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        var result: Int32 = 0
        waiting { result = pthread_cond_timedwait(condition, lockWord.mutex, &time) }
        return result == 0
    }

    /// Wakes one waiter.
    public func signal() {
        Participation.fuzz(.beforeRelease)
        Participation.controlled?.signal(Participation.key(self), all: false)
        pthread_cond_signal(condition)
        Participation.fuzz(.afterRelease)
    }

    /// Wakes every waiter.
    public func broadcast() {
        Participation.fuzz(.beforeRelease)
        Participation.controlled?.signal(Participation.key(self), all: true)
        pthread_cond_broadcast(condition)
        Participation.fuzz(.afterRelease)
    }

    /// A wait under control: the lock is given up for real and in the
    /// model, the worker waits in the model for a signal (a timed wait's
    /// deadline passes only when nothing else can run: the virtual clock),
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
