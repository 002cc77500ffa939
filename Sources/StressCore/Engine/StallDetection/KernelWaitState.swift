#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the kernel says a thread of the trial process is doing, where the
/// platform tells (Linux: `/proc/self/task/<tid>/stat`, `wchan` and
/// `syscall`): how a stall report names a worker blocked in code the harness
/// cannot see, such as a plain `NSLock` or `pthread_mutex_t` taken twice.
package struct KernelWaitState: Sendable, Codable, Equatable {
    /// The scheduler's state letter: `S` asleep in the kernel (blocked until
    /// something wakes it), `D` in an uninterruptible wait (disk I/O), `R`
    /// running or waiting for a CPU.
    public var state: String
    /// The kernel function it sleeps in (`futex_do_wait`), when the kernel shows it.
    public var waitChannel: String?
    /// The system call it is blocked in (`futex`, `nanosleep`), when the kernel shows it.
    public var systemCall: String?

    /// A state.
    public init(state: String, waitChannel: String? = nil, systemCall: String? = nil) {
        self.state = state
        self.waitChannel = waitChannel
        self.systemCall = systemCall
    }

    /// Asleep in the kernel: it runs again only when something wakes it.
    var isAsleep: Bool { state == "S" }

    /// Asleep on a futex: the wait of a lock, condition, semaphore or join
    /// (a wait for another thread, as a deadlock's is) rather than a sleep,
    /// a read or a poll (which the thread itself chose: a hang).
    var waitsForAnotherThread: Bool {
        isAsleep && (systemCall == "futex" || systemCall == nil && waitChannel?.hasPrefix("futex") == true)
    }

    /// Words for a stall report.
    var words: String {
        let details = (["state \(state)"] + [waitChannel, systemCall.map { "system call \($0)" }].compactMap { $0 })
            .joined(separator: ", ")
        if waitsForAnotherThread {
            return "blocked in the kernel on a futex, the wait of a lock, condition or semaphore (\(details))"
        }
        if isAsleep { return "asleep in the kernel" + (systemCall.map { " in \($0)" } ?? "") + " (\(details))" }
        return "in the kernel's state \(state) (\(details))"
    }
}
