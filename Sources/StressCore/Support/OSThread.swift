#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Dispatch

/// A joinable OS thread running a closure: workers are real threads, not pool
/// tasks, so the OS schedules them as it would an app's threads.
package struct OSThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    #if canImport(Glibc)
    private var handle = pthread_t()
    #else
    private var handle: pthread_t?
    #endif
    /// For a body run by a ``ThreadPool``'s thread: its end, which a join
    /// waits for instead of the thread's.
    private var pooledEnd: DispatchSemaphore?

    private init() {}

    /// A body a pool's thread runs: joining it waits for `end`.
    init(joining end: DispatchSemaphore) { pooledEnd = end }

    /// Starts a thread running `body` (called from a ``ThreadPool``'s
    /// thread: one of that pool's). Returns nil if the OS refused (the
    /// caller reports it; it does not trap).
    package static func spawn(_ body: @escaping @Sendable () -> Void) -> OSThread? {
        if let pool = ThreadPool.current, stress_tsan_active() == 0 { return pool.start(body) }
        return spawnOwn(body)
    }

    /// Starts a thread of its own, which nobody joins (a pool's). False if the OS refused.
    static func spawnDetached(_ body: @escaping @Sendable () -> Void) -> Bool {
        guard let thread = spawnOwn(body) else { return false }
        #if canImport(Glibc)
        pthread_detach(thread.handle)
        #else
        if let handle = thread.handle { pthread_detach(handle) }
        #endif
        return true
    }

    private static func spawnOwn(_ body: @escaping @Sendable () -> Void) -> OSThread? {
        var thread = OSThread()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread.handle, nil, { raw in
            #if canImport(Glibc)
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            #else
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            #endif
            box.body()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        return thread
    }

    /// Waits for the thread to end.
    func join() {
        if let pooledEnd {
            pooledEnd.wait()
            return
        }
        #if canImport(Glibc)
        pthread_join(handle, nil)
        #else
        if let handle { pthread_join(handle, nil) }
        #endif
    }
}
