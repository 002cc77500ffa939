import StressCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writing through descriptors: the process's own streams named by path
/// (`/dev/stdout`), and FIFOs and devices, for ``AtomicFile`` and the NDJSON
/// stream.
///
/// Two things make this more than `write(2)` in a loop. `/dev/stdout` is a
/// link to `/proc/self/fd/1`, which is a link to `pipe:[N]` when standard
/// output is a pipe (not a path anything can open) and to the file itself when
/// the shell redirected it (which an atomic replace would swap for a new file,
/// losing what was printed before): such a name means the descriptor, and is
/// written through it. And a FIFO's writer waits for a reader, for ever if none
/// comes, so the wait is bounded, and any wait ends when the caller says so (a
/// signal asked the run to stop).
enum DescriptorOutput {
    /// The descriptor `path` names, when it is one of this process's own:
    /// `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
    /// `/proc/self/fd/N`, `/proc/thread-self/fd/N` or `/proc/PID/fd/N` with
    /// this process's PID. The name is read as written (doubled slashes and
    /// `.` components aside), before any link is followed.
    static func descriptor(named path: String) -> Int32? {
        let parts = path.split(separator: "/").filter { $0 != "." }
        guard path.hasPrefix("/") else { return nil }
        switch parts.count {
        case 2 where parts[0] == "dev":
            return ["stdin": 0, "stdout": 1, "stderr": 2][String(parts[1])]
        case 3 where parts[0] == "dev" && parts[1] == "fd":
            return Int32(parts[2])
        case 4 where parts[0] == "proc" && parts[2] == "fd":
            let own = parts[1] == "self" || parts[1] == "thread-self" || parts[1] == Substring(String(getpid()))
            return own ? Int32(parts[3]) : nil
        default:
            return nil
        }
    }

    /// Checks that `fd` is open, and not for reading only.
    static func checkWritable(_ fd: Int32, path: String) throws(FileWriteError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { throw FileWriteError(path: path, reason: "descriptor \(fd) is not open in this process") }
        guard flags & O_ACCMODE != O_RDONLY else { throw FileWriteError(path: path, reason: "descriptor \(fd) is open for reading only") }
    }

    /// Opens the device or FIFO `target` for writing. A FIFO is opened without
    /// blocking (the descriptor stays non-blocking: ``writeAll(_:to:path:abandonWhen:)``
    /// waits for room with `poll`), retried until a reader has it open; after
    /// `readerWait` with none, or as soon as `abandon` is true, it is an error.
    static func open(special target: String, path: String, readerWait: Duration,
                     abandonWhen abandon: () -> Bool) throws(FileWriteError) -> Int32 {
        var info = stat()
        guard stat(target, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else {
            let fd = openPath(target, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw FileWriteError(path: path, errno: errno) }
            return fd
        }
        let deadline = ContinuousClock.now + readerWait
        while true {
            let fd = openPath(target, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 { return fd }
            // ENXIO: no process has the FIFO open for reading yet.
            guard errno == ENXIO || errno == EINTR else { throw FileWriteError(path: path, errno: errno) }
            if abandon() { throw FileWriteError(path: path, reason: "a signal asked the run to stop while it waited for a reader of the FIFO") }
            if ContinuousClock.now >= deadline {
                throw FileWriteError(path: path, reason: "no process opened the FIFO for reading within \(readerWait.components.seconds)s")
            }
            usleep(20_000)
        }
    }

    /// Writes every byte of `data` to `fd`, retrying short writes. When the
    /// descriptor cannot take more yet (a full pipe: `EAGAIN` on a non-blocking
    /// one, `EINTR` when a signal cut a blocking write short), it waits for
    /// room in slices of 50 ms, and gives up with an error as soon as
    /// `abandon` is true.
    static func writeAll(_ data: Data, to fd: Int32, path: String, abandonWhen abandon: () -> Bool = { false }) throws(FileWriteError) {
        var failure: FileWriteError?
        data.withUnsafeBytes { bytes in
            do throws(FileWriteError) { try writeAll(bytes, to: fd, path: path, abandonWhen: abandon) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// ``writeAll(_:to:path:abandonWhen:)`` of bytes in memory the caller
    /// owns (a ``ChunkedOutput``'s chunk).
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String,
                         abandonWhen abandon: () -> Bool = { false }) throws(FileWriteError) {
        var offset = 0
        while offset < bytes.count {
            let n = writeSome(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n > 0 {
                offset += n
                continue
            }
            let code = n < 0 ? errno : EIO
            guard code == EINTR || code == EAGAIN || code == EWOULDBLOCK else {
                throw FileWriteError(path: path, errno: code)
            }
            if abandon() {
                // A chunk's count, not the file's: only that the file is cut short is sure.
                throw FileWriteError(path: path, reason: "a signal asked the run to stop while the reader was not reading (the file is cut short)")
            }
            if code != EINTR {
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiting, 1, 50)
            }
        }
    }
}

/// `open(2)`, out of reach of ``DescriptorOutput/open(special:path:readerWait:abandonWhen:)``'s name.
private func openPath(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }

/// `write(2)`, out of reach of the callers' own `write` methods.
private func writeSome(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
