#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// A recursive lock in the shape of Foundation's `NSRecursiveLock` (and of
/// Objective-C's `@synchronized`): the thread that holds it may take it
/// again, and holds it until it has given it back as many times. A trial sees
/// it as it sees a ``StressLock``: what each thread waits for and holds, fuzz
/// points around taking and giving it back, and, under controlled
/// scheduling, a scheduling point at each. In a trial's child process a plain
/// `NSRecursiveLock` is seen too with `interpose: true`; this wrapper is for
/// in-process runs, `StressTest` and platforms without interposition.
/// Outside a trial it is a recursive pthread mutex plus one thread-local check.
public final class StressRecursiveLock: @unchecked Sendable {
    // @unchecked: the mutex lives in memory of its own, and every access is
    // through it; `depth` is read and written only by the thread holding it.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// How many times the holder holds it (so that the trial sees one hold).
    private var depth = 0

    /// A recursive lock, optionally named for stall reports ("the lock
    /// 'catalog'"). Unnamed, a report calls it by its type and where it was
    /// made; `file` and `line` are the caller's, filled in by the compiler.
    ///
    /// - Parameters:
    ///   - name: How stall reports name it ("the lock 'name'"); nil for its type and place.
    ///   - file: The file that makes it (the compiler fills it in).
    ///   - line: The line that makes it (the compiler fills it in).
    public init(name: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        if let name {
            PrimitiveNames.register(Participation.key(self), "the lock '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(self), madeAs: "StressRecursiveLock", file: file, line: line)
        }
    }

    deinit {
        PrimitiveNames.unregister(Participation.key(self))
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it unless this thread holds it already.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    public func lock(file: StaticString = #fileID, line: UInt = #line) {
        guard stress_participant() != nil else {
            pthread_mutex_lock(mutex)
            return
        }
        let key = Participation.key(self)
        Participation.fuzz(.beforeAcquire)
        Participation.locate(file: file, line: line)
        stress_wait_begin(key, UInt64(STRESS_WAIT_LOCK))
        Participation.controlled?.acquire(key, reentrant: true)
        pthread_mutex_lock(mutex)
        stress_wait_end()
        depth += 1
        if depth == 1 { stress_hold(key) }
        Participation.fuzz(.afterAcquire)
    }

    /// Takes the lock if it is free or this thread holds it; returns whether it did.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    /// - Returns: Whether the lock was taken.
    public func `try`(file: StaticString = #fileID, line: UInt = #line) -> Bool {
        guard stress_participant() != nil else { return pthread_mutex_trylock(mutex) == 0 }
        let key = Participation.key(self)
        if let controlled = Participation.controlled {
            Participation.fuzz(.beforeAcquire)
            Participation.locate(file: file, line: line)
            guard controlled.tryAcquire(key, reentrant: true) else { return false }
        }
        guard pthread_mutex_trylock(mutex) == 0 else { return false }
        depth += 1
        if depth == 1 { stress_hold(key) }
        return true
    }

    /// Gives one hold of the lock back.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    public func unlock(file: StaticString = #fileID, line: UInt = #line) {
        guard stress_participant() != nil else {
            pthread_mutex_unlock(mutex)
            return
        }
        let key = Participation.key(self)
        Participation.fuzz(.beforeRelease)
        depth -= 1
        if depth == 0 { stress_unhold(key) }
        pthread_mutex_unlock(mutex)
        Participation.locate(file: file, line: line)
        Participation.controlled?.release(key)
        Participation.fuzz(.afterRelease)
    }

    /// Runs `body` holding the lock.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    ///   - body: The work to do holding the lock.
    /// - Returns: What `body` returns.
    public func withLock<R>(file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> R) rethrows -> R {
        lock(file: file, line: line)
        defer { unlock(file: file, line: line) }
        return try body()
    }
}
