#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// Starts a thread running `body`. Returns nil if the OS refused (the caller
    /// reports it; it does not trap).
    package static func spawn(_ body: @escaping @Sendable () -> Void) -> OSThread? {
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
        #if canImport(Glibc)
        pthread_join(handle, nil)
        #else
        if let handle { pthread_join(handle, nil) }
        #endif
    }
}
