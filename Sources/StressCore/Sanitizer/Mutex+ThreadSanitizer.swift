import CStressSupport
import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, with ThreadSanitizer told that the lock orders what is
    /// done under it. A contended `Mutex` is handed over in the kernel (a
    /// futex), in the standard library, which is not instrumented: TSan then
    /// sees two critical sections with nothing between them and reports a
    /// race that is not one. The harness's own mutexes are taken this way,
    /// so a TSan build reports none of them; outside one it is `withLock`
    /// and an untaken branch.
    @inline(__always)
    package borrowing func withLockSeen<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        // The mutex's own address (it never moves: a Mutex is borrowed in
        // place), taken without touching the value, which TSan would see
        // as an access made before the acquire below.
        let sync = withUnsafePointer(to: self) { UnsafeMutableRawPointer(mutating: $0) }
        return try withLock { (value: inout sending Value) throws(E) -> sending Result in
            stress_tsan_acquire(sync)
            defer { stress_tsan_release(sync) }
            return try body(&value)
        }
    }
}
