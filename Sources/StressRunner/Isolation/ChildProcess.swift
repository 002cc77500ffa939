import StressCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// How a child process ended.
package enum ChildTermination: Sendable, Equatable {
    /// It exited with this status.
    case exited(Int32)
    /// A signal killed it.
    case signaled(Int32)
    /// It ran past its deadline and the parent killed it.
    case timedOut
    /// The parent was interrupted (SIGINT/SIGTERM) and killed it.
    case interrupted
}

/// What the parent collected from a child.
package struct ChildCapture: Sendable {
    /// How it ended.
    public var termination: ChildTermination
    /// Everything the child wrote to its result descriptor.
    public var result: [UInt8]
    /// The last bytes the child wrote to standard output and error.
    public var outputTail: [UInt8]
    /// The child wrote a whole record (a line) but did not exit, and the parent
    /// ended it: a stalled trial's process whose exit, after its deadlock or
    /// hang report, waited on a stuck worker (see `TrialChild`).
    public var killedAfterRecord = false
}

/// Runs a child process with a result pipe on descriptor 3, standard output and
/// error captured together, a spec written to its standard input, and a deadline.
///
/// One thread does it all with `poll`, so a child that fills a pipe never stalls.
/// At the deadline the child gets SIGTERM, then SIGKILL after a grace period; the
/// same happens shortly after the child has written a whole record without
/// exiting (a stalled trial's process ends itself after its record, with
/// `TrialChild.stalledExitStatus`, unless its exit waits on a stuck worker),
/// and when the parent is interrupted. The child runs in its own process group,
/// so a Ctrl-C at the terminal reaches only the parent, which then ends the child.
package enum ChildProcess {
    /// The descriptor the child writes its result record to.
    public static let resultDescriptor: Int32 = 3
    /// Kept bytes of the child's combined output.
    static let outputTailLimit = 64 * 1024
    /// Largest result accepted (a result record is a few hundred kilobytes at most).
    static let resultLimit = 256 * 1024 * 1024
    /// How long a child may linger after writing its record before it is ended.
    static let recordGraceNs: UInt64 = 300_000_000

    /// Spawns `executable` with `arguments`, feeds it `input`, and collects what
    /// it writes until it ends or `timeoutNs` passes. A `journal` descriptor
    /// (``CrashJournal``) is handed to the child as descriptor 4.
    public static func run(
        executable: String, arguments: [String], environment: [String: String] = [:],
        input: [UInt8], timeoutNs: UInt64, graceNs: UInt64 = 1_000_000_000, journal: Int32? = nil
    ) throws(EngineError) -> ChildCapture {
        var stdinPipe: [Int32] = [-1, -1], resultPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
        guard makePipe(&stdinPipe), makePipe(&resultPipe), makePipe(&outputPipe) else {
            for fd in stdinPipe + resultPipe + outputPipe where fd >= 0 { close(fd) }
            throw EngineError("cannot create pipes: \(String(cString: strerror(errno)))")
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2)
        posix_spawn_file_actions_adddup2(&actions, resultPipe[1], resultDescriptor)
        // Above the descriptors the child is given, so that none of those
        // dups overwrites it first (the journal may well be descriptor 3).
        let journalCopy = journal.map { fcntl($0, F_DUPFD_CLOEXEC, 10) } ?? -1
        defer { if journalCopy >= 0 { close(journalCopy) } }
        if journalCopy >= 0 { posix_spawn_file_actions_adddup2(&actions, journalCopy, CrashJournal.childDescriptor) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var env = inheritedEnvironment()
        for (k, v) in environment { env[k] = v }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        var pid = pid_t()
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(stdinPipe[0]); close(outputPipe[1]); close(resultPipe[1])
        guard rc == 0 else {
            close(stdinPipe[1]); close(outputPipe[0]); close(resultPipe[0])
            throw EngineError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }

        writeAll(stdinPipe[1], input)
        close(stdinPipe[1])
        return collect(pid: pid, result: resultPipe[0], output: outputPipe[0], timeoutNs: timeoutNs, graceNs: graceNs)
    }

    private static func collect(pid: pid_t, result: Int32, output: Int32, timeoutNs: UInt64, graceNs: UInt64) -> ChildCapture {
        defer { close(result); close(output) }
        var resultBytes: [UInt8] = []
        var tail: [UInt8] = []
        var open: [Int32] = [result, output]
        let deadline = MonotonicClock.now() &+ timeoutNs
        var status: Int32 = 0
        var exited = false
        var timedOut = false
        var interrupted = false
        var killedAfterRecord = false
        var recordSeenAt: UInt64?
        var buffer = [UInt8](repeating: 0, count: 65536)

        while true {
            if !exited, waitpid(pid, &status, WNOHANG) == pid { exited = true }
            if open.isEmpty && exited { break }
            let now = MonotonicClock.now()
            if !exited && now >= deadline {
                timedOut = true
                status = terminate(pid, graceNs: graceNs)
                exited = true
            } else if !exited, let seen = recordSeenAt, now &- seen >= recordGraceNs {
                killedAfterRecord = true
                status = terminate(pid, graceNs: graceNs)
                exited = true
            } else if !exited && stress_interrupt_count() > 0 {
                interrupted = true
                status = terminate(pid, graceNs: graceNs)
                exited = true
            }
            if exited && open.isEmpty { break }
            // Once the child is gone, drain what is buffered and stop (a grandchild
            // holding a pipe open must not keep us here).
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let wait = exited ? 0 : Int32(min(100, max(1, (deadline &- now) / 1_000_000)))
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 {
                if exited { break }
                continue
            }
            for f in fds where f.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(f.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if f.fd == result {
                        if resultBytes.count < resultLimit { resultBytes += buffer[0..<n] }
                        if recordSeenAt == nil && buffer[0..<n].contains(UInt8(ascii: "\n")) { recordSeenAt = MonotonicClock.now() }
                    } else {
                        tail += buffer[0..<n]
                        if tail.count > outputTailLimit { tail.removeFirst(tail.count - outputTailLimit) }
                    }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == f.fd }
                }
            }
        }
        if !exited { waitpid(pid, &status, 0) }
        let termination: ChildTermination
        if timedOut {
            termination = .timedOut
        } else if interrupted {
            termination = .interrupted
        } else if status & 0x7f == 0 {
            termination = .exited((status >> 8) & 0xff)
        } else {
            termination = .signaled(status & 0x7f)
        }
        return ChildCapture(termination: termination, result: resultBytes, outputTail: tail, killedAfterRecord: killedAfterRecord)
    }

    /// SIGTERM, a grace period, then SIGKILL; returns the wait status.
    static func terminate(_ pid: pid_t, graceNs: UInt64) -> Int32 {
        var status: Int32 = 0
        kill(pid, SIGTERM)
        let giveUp = MonotonicClock.now() &+ graceNs
        while MonotonicClock.now() < giveUp {
            if waitpid(pid, &status, WNOHANG) == pid { return status }
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return status
    }

    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        fds.withUnsafeMutableBufferPointer { stress_pipe_cloexec($0.baseAddress!) } == 0
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }

    private static func inheritedEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        guard var p = stress_environ() else { return env }
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return env
    }

    /// `SIGSEGV` for 11, and so on; `signal N` for others.
    public static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
            SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
