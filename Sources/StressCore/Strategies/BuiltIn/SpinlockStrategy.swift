import Synchronization

/// `spinlock`: a test-and-test-and-set spin lock per resource (`SpinLock`),
/// with bounded exponential backoff and then `sched_yield`.
///
/// The stand-in on Linux for `os_unfair_lock` and the hand-rolled spin locks
/// (`OSSpinLock` before it was deprecated) that Apple-platform code uses for
/// tiny critical sections: a waiter never sleeps in the kernel, it spins with
/// CPU pause hints and then yields. Cheap when uncontended, wasteful when the
/// holder is preempted (more workers than cores). Not reentrant: locking again
/// on the holding thread spins forever. Not fair: a thread that just released
/// can take it straight back. Each lock word sits on its own cache line.
package final class SpinlockStrategy: BlockingStrategy, @unchecked Sendable {
    // @unchecked: the lock words live in raw memory every worker touches
    // atomically; that is what a lock is. The pointer never changes after init.
    public static let descriptor = StrategyDescriptor(
        name: "spinlock",
        summary: "test-and-test-and-set spin lock with backoff, then sched_yield (the os_unfair_lock stand-in)",
        reentrant: false, sharedReads: false
    )

    private let words: CacheLineArray<Atomic<UInt32>>

    public init(setup: StrategySetup) throws {
        words = CacheLineArray(count: setup.resources)
        for i in 0..<setup.resources { words[i].initialize(to: Atomic(0)) }
    }

    deinit { words.deallocate() }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        let word = words[resource]
        SpinLock.lock(word.pointee)
        defer { SpinLock.unlock(word.pointee) }
        return body()
    }
}

extension SpinlockStrategy: HoldingStrategy {
    public func acquire(_ resource: Int) { SpinLock.lock(words[resource].pointee) }
    public func release(_ resource: Int) { SpinLock.unlock(words[resource].pointee) }
}
