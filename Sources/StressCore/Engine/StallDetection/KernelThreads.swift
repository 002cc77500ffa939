#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the threads of this process as the kernel sees them. Linux only
/// (elsewhere every answer is nil: the watchdog then falls back on waiting
/// longer). Never on a hot path: the watchdog asks only once a trial has
/// completed nothing for its limit.
enum KernelThreads {
    /// The state of this process's thread `tid` (a kernel thread id), or nil
    /// when the platform does not say.
    static func state(of tid: UInt64) -> KernelWaitState? {
        guard tid != 0, let letter = stateLetter(of: tid) else { return nil }
        let channel = read("/proc/self/task/\(tid)/wchan").map(trimmed).flatMap { $0.isEmpty || $0 == "0" ? nil : $0 }
        // "202 0x... ..." while in a system call; "running", or "-1 ..." when
        // blocked outside one (a page fault).
        let call = read("/proc/self/task/\(tid)/syscall")
            .flatMap { $0.split(separator: " ").first.flatMap { Int($0) } }
            .flatMap { $0 >= 0 ? systemCallName($0) : nil }
        return KernelWaitState(state: letter, waitChannel: channel, systemCall: call)
    }

    /// Whether every thread of this process other than `ignored` is asleep
    /// in the kernel (or gone): then nothing in the process can move until a
    /// sleeper is woken, by a timer or from outside. Nil when the platform
    /// does not say. A thread that is running, waiting for a CPU or in an
    /// uninterruptible wait (I/O, a page fault) makes it false: that thread
    /// may yet wake the others.
    static func othersAsleep(ignoring ignored: Set<UInt64>) -> Bool? {
        #if os(Linux)
        guard let dir = opendir("/proc/self/task") else { return nil }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let tid = UInt64(name), !ignored.contains(tid) else { continue }
            // A thread that ended between the listing and the read has no
            // state left: it wakes nobody.
            guard let letter = stateLetter(of: tid) else { continue }
            if !["S", "Z", "X", "T", "t"].contains(letter) { return false }
        }
        return true
        #else
        return nil
        #endif
    }

    /// The state letter of `/proc/self/task/<tid>/stat`: the field after
    /// the command name, which is in parentheses and may itself hold spaces
    /// and parentheses (hence the last one).
    private static func stateLetter(of tid: UInt64) -> String? {
        guard let stat = read("/proc/self/task/\(tid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let rest = stat[stat.index(after: close)...].drop { $0 == " " }
        return rest.first.map { String($0) }
    }

    /// The start of the file at `path` (these files are short), or nil.
    private static func read(_ path: String) -> String? {
        #if os(Linux)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(n), as: UTF8.self)
        #else
        return nil
        #endif
    }

    private static func trimmed(_ s: String) -> String {
        String(s.drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
    }

    /// The names of the system calls a blocked thread is usually found in;
    /// others by number.
    private static func systemCallName(_ number: Int) -> String {
        #if arch(x86_64)
        let names = [202: "futex", 35: "nanosleep", 230: "clock_nanosleep", 7: "poll", 271: "ppoll", 23: "select",
                     270: "pselect6", 232: "epoll_wait", 281: "epoll_pwait", 0: "read", 1: "write", 45: "recvfrom",
                     47: "recvmsg", 43: "accept", 288: "accept4", 61: "wait4", 247: "waitid", 34: "pause",
                     130: "rt_sigsuspend", 128: "rt_sigtimedwait", 72: "fcntl", 73: "flock"]
        #elseif arch(arm64)
        let names = [98: "futex", 101: "nanosleep", 115: "clock_nanosleep", 73: "ppoll", 72: "pselect6",
                     22: "epoll_pwait", 63: "read", 64: "write", 207: "recvfrom", 212: "recvmsg", 202: "accept",
                     242: "accept4", 260: "wait4", 95: "waitid", 133: "rt_sigsuspend", 137: "rt_sigtimedwait",
                     25: "fcntl", 32: "flock"]
        #else
        let names: [Int: String] = [:]
        #endif
        return names[number] ?? "number \(number)"
    }
}
