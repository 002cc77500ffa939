import CStressSupport
import Synchronization

/// A drop-in for `Synchronization.Mutex` that a trial can see (swap it in
/// through a typealias for test builds). Outside a trial it is the `Mutex` it
/// wraps plus one thread-local check. Inside one it publishes, without
/// allocating, that the thread waits for it and then holds it (a deadlock
/// among such locks is a `deadlock` with its wait-for cycle), and it has fuzz
/// points before and after acquiring and before releasing.
///
/// A class rather than a noncopyable struct, so that the trial can name it by
/// its address; store it in a `let` as you would a `Mutex`.
public final class StressMutex<Value: ~Copyable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    /// A mutex holding `initialValue`; `name` is how a stall report names it
    /// ("the mutex 'stats'"). Unnamed, a report calls it by its type and
    /// where it was made ("the StressMutex made at Store/Stats.swift:8"):
    /// `file` and `line` are the caller's, filled in by the compiler.
    ///
    /// - Parameters:
    ///   - initialValue: The value the mutex guards.
    ///   - name: How stall reports name it ("the mutex 'name'"); nil for its type and place.
    ///   - file: The file that makes it (the compiler fills it in).
    ///   - line: The line that makes it (the compiler fills it in).
    public init(_ initialValue: consuming sending Value, name: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        mutex = Mutex(initialValue)
        if let name {
            PrimitiveNames.register(Participation.key(self), "the mutex '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(self), madeAs: "StressMutex", file: file, line: line)
        }
    }

    deinit { PrimitiveNames.unregister(Participation.key(self)) }

    /// Runs `body` with the value, holding the lock, as `Mutex.withLock`.
    /// (Inlinable, so that outside a trial it is the `Mutex`'s own path,
    /// specialized in the caller, plus one thread-local load.)
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    ///   - body: The work to do with the value, holding the lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @inlinable
    public func withLock<Result: ~Copyable, E: Error>(
        file: StaticString = #fileID, line: UInt = #line, _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        guard stress_participant() != nil else { return try mutex.withLock(body) }
        return try withLockInTrial(file: file, line: line, body)
    }

    @usableFromInline
    func withLockInTrial<Result: ~Copyable, E: Error>(
        file: StaticString, line: UInt, _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let key = Participation.key(self)
        Participation.fuzz(.beforeAcquire)
        Participation.locate(file: file, line: line)
        stress_wait_begin(key, UInt64(STRESS_WAIT_LOCK))
        // Under control the model decides who waits (the real mutex is then
        // free), and gives the mutex back once the real one is released.
        let controlled = Participation.controlled
        controlled?.acquire(key)
        defer {
            Participation.locate(file: file, line: line)
            controlled?.release(key)
            Participation.fuzz(.afterRelease)
        }
        let sync = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            // ThreadSanitizer cannot see Mutex's own synchronization (the
            // standard library is not instrumented): told here.
            stress_tsan_acquire(sync)
            stress_wait_end()
            stress_hold(key)
            Participation.fuzz(.afterAcquire)
            defer {
                Participation.fuzz(.beforeRelease)
                stress_unhold(key)
                stress_tsan_release(sync)
            }
            return try body(&value)
        }
    }

    /// Runs `body` with the value if the lock is free, as `Mutex.withLockIfAvailable`.
    ///
    /// - Parameter body: The work to do with the value, holding the lock.
    /// - Returns: What `body` returns; nil when the lock was not free.
    /// - Throws: What `body` throws.
    @inlinable
    public func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard stress_participant() != nil else { return try mutex.withLockIfAvailable(body) }
        return try withLockIfAvailableInTrial(body)
    }

    @usableFromInline
    func withLockIfAvailableInTrial<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        let key = Participation.key(self)
        Participation.fuzz(.beforeAcquire)
        let controlled = Participation.controlled
        if let controlled, !controlled.tryAcquire(key) { return nil }
        defer { controlled?.release(key) }
        let sync = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLockIfAvailable { (value: inout sending Value) throws(E) -> sending Result in
            stress_tsan_acquire(sync)  // as in withLockInTrial
            stress_hold(key)
            defer {
                Participation.fuzz(.beforeRelease)
                stress_unhold(key)
                stress_tsan_release(sync)
            }
            return try body(&value)
        }
    }
}
