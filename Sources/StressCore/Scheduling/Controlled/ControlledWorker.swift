import Synchronization

/// One worker of a controlled trial, as a harness-aware primitive sees it
/// (``Participation/controlled``): the model calls it makes, always from the
/// thread that holds the run token.
struct ControlledWorker {
    let scheduler: ControlledScheduler
    let worker: Int

    /// Takes `key` in the model, blocked (the token handed on) while another
    /// worker holds it. False once control has ended: the real primitive then
    /// blocks for itself.
    @discardableResult
    func acquire(_ key: UInt64, shared: Bool = false, reentrant: Bool = false) -> Bool {
        scheduler.acquire(worker, key, shared: shared, reentrant: reentrant)
    }

    /// Takes `key` in the model if it is free, never blocking (a `try`).
    func tryAcquire(_ key: UInt64, reentrant: Bool = false) -> Bool {
        scheduler.tryAcquire(worker, key, reentrant: reentrant)
    }

    /// Gives `key` back in the model (after the real primitive was released).
    func release(_ key: UInt64) { scheduler.release(worker, key) }

    /// Waits on `condition`, giving `lock` up meanwhile (see
    /// ``ControlledScheduler/wait(_:on:releasing:timed:)``).
    func wait(on condition: UInt64, releasing lock: UInt64, timed: Bool) -> Bool? {
        scheduler.wait(worker, on: condition, releasing: lock, timed: timed)
    }

    /// Waits until `key` is signalled (a semaphore at zero): `resumed` is
    /// false when control ended meanwhile; `timedOut` says whether a timed
    /// wait's virtual deadline ended it.
    func awaitSignal(_ key: UInt64, timed: Bool) -> (resumed: Bool, timedOut: Bool) {
        scheduler.awaitSignal(worker, on: key, timed: timed)
    }

    /// Wakes the waiters of `key` (one, or all).
    func signal(_ key: UInt64, all: Bool) { scheduler.signal(worker, key, all: all) }

    /// Notes that this worker took a unit of the lock-semaphore `key`.
    func tookSemaphore(_ key: UInt64) { scheduler.tookSemaphore(worker, key) }

    /// Notes that this worker gave back a unit of the lock-semaphore `key`.
    func gaveSemaphore(_ key: UInt64) { scheduler.gaveSemaphore(worker, key) }
}
