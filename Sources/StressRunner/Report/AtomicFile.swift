import StressCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes output files without ever destroying what stressbench does not own.
///
/// What happens depends on what the path names:
///
/// - `-`: standard output.
/// - A name of one of this process's open descriptors (`/dev/stdout`,
///   `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`): the bytes are written
///   through that descriptor, whatever it is (a pipe, a terminal, a file the
///   shell redirected to, which then keeps what was written before). It is
///   never reopened or replaced; `/dev/stdout` is standard output, as `-` is.
/// - A regular file, or nothing yet: the bytes go to a temporary file in the
///   same directory, which is flushed and then renamed over the target (an
///   atomic replace: a reader never sees half a file). An existing file keeps
///   its permission bits. A read-only file (no write permission for anyone,
///   or none for this user) is refused, never silently replaced, even when
///   running as root.
/// - A device node or a FIFO (`/dev/null`, a named pipe): the bytes are
///   written through it, in place. It is never replaced. A FIFO is waited on
///   until a reader opens it, for at most ``fifoReaderWait``: a FIFO nobody
///   reads is an error, not a run that never ends.
/// - A symbolic link: followed, however many levels deep. The file it finally
///   names is written by the rules above and the link stays a link. A link
///   to a missing file creates that file.
/// - A directory, a socket: an error.
package enum AtomicFile {
    /// The path that means standard output.
    public static let standardOutputPath = "-"

    /// What a path resolves to for writing.
    public enum Destination: Equatable, Sendable {
        /// Standard output (the path `-`, or a name of descriptor 1 such as `/dev/stdout`).
        case standardOutput
        /// Another open descriptor of this process, named by `/dev/stderr`,
        /// `/dev/fd/N` or `/proc/self/fd/N`: written through, never reopened.
        case descriptor(Int32)
        /// A regular file, existing or not, at this path (symlinks resolved):
        /// replaced atomically.
        case regularFile(String)
        /// A device node or FIFO at this path (symlinks resolved): written through.
        case special(String)
    }

    /// How long a write to a FIFO waits for a process to open it for reading
    /// before it gives up with an error: 10 s.
    public static let fifoReaderWait: Duration = .seconds(10)

    /// Writes `data` to `path` by the rules above. Throws a
    /// ``FileWriteError`` with the system's reason; a regular target is then
    /// untouched and no temporary file is left.
    ///
    /// A write that has to wait (for a FIFO's reader, or for a pipe's reader to
    /// make room) gives up with an error as soon as `abandon` returns true; it
    /// is asked every few milliseconds, and at once when a signal interrupts
    /// the wait. A command passes "a signal arrived since I began writing", so
    /// that Ctrl-C ends a wait on a reader that never comes.
    public static func write(_ data: Data, to path: String, abandonWhen abandon: () -> Bool = { false }) throws {
        try write(to: path, abandonWhen: abandon) { $0.append(data) }
    }

    /// Writes to `path` by the rules above what `fill` appends to the
    /// output it is given, a chunk at a time (``ChunkedOutput``): a file of
    /// hundreds of megabytes is never whole in memory. A regular target is
    /// still replaced only once every byte is written and flushed; when
    /// `fill` throws, or a write fails, it is untouched and the temporary
    /// file removed. Throws `fill`'s error or a ``FileWriteError``.
    package static func write(to path: String, abandonWhen abandon: () -> Bool = { false },
                              _ fill: (ChunkedOutput) throws -> Void) throws {
        switch try destination(of: path) {
        case .standardOutput:
            fflush(nil)  // what the C streams hold for the descriptor goes first
            try stream(fill, to: STDOUT_FILENO, path: path, abandonWhen: abandon)
        case .descriptor(let fd):
            fflush(nil)
            try stream(fill, to: fd, path: path, abandonWhen: abandon)
        case .special(let target):
            let fd = try DescriptorOutput.open(special: target, path: path, readerWait: fifoReaderWait, abandonWhen: abandon)
            defer { close(fd) }
            try stream(fill, to: fd, path: path, abandonWhen: abandon)
        case .regularFile(let target):
            try replace(target, reportedAs: path, with: fill)
        }
    }

    /// Runs `fill` on an output written through `fd`, and flushes its last chunk.
    private static func stream(_ fill: (ChunkedOutput) throws -> Void, to fd: Int32, path: String,
                               abandonWhen abandon: () -> Bool) throws {
        // The output keeps its sink, which asks `abandon`, only until `finish`.
        try withoutActuallyEscaping(abandon) { abandon in
            let output = ChunkedOutput.writing(to: fd, path: path, abandonWhen: abandon)
            try fill(output)
            try output.finish()
        }
    }

    /// Replaces `path` with `text` in UTF-8.
    public static func write(_ text: String, to path: String) throws { try write(Data(text.utf8), to: path) }

    /// Whether `path` is standard output: `-`, or a name of descriptor 1
    /// (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, or a link to one). A
    /// command whose output goes there prints its report to standard error.
    public static func isStandardOutput(_ path: String?) -> Bool {
        guard let path else { return false }
        return (try? destination(of: path)) == .standardOutput
    }

    /// Checks, before any work, that ``write(_:to:abandonWhen:)`` will be able to write
    /// `path`: it resolves to standard output, a writable device or FIFO, a
    /// writable regular file, or a new file in a directory where one can be
    /// created (and removed).
    public static func checkWritable(_ path: String) throws(FileWriteError) {
        switch try destination(of: path) {
        case .standardOutput:
            return
        case .descriptor(let fd):
            try DescriptorOutput.checkWritable(fd, path: path)
        case .special(let target):
            if access(target, W_OK) != 0 { throw FileWriteError(path: path, errno: errno) }
        case .regularFile(let target):
            let probe = sibling(of: target, tag: "probe")
            let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileWriteError(path: path, errno: errno) }
            close(fd)
            unlink(probe)
        }
    }

    /// What writing `path` will touch, or why it cannot be written.
    public static func destination(of path: String) throws(FileWriteError) -> Destination {
        if path == standardOutputPath { return .standardOutput }
        guard !path.isEmpty else { throw FileWriteError(path: path, reason: "an empty path") }
        let target = try resolvingLinks(path)
        if let fd = DescriptorOutput.descriptor(named: target) {
            return fd == STDOUT_FILENO ? .standardOutput : .descriptor(fd)
        }
        var info = stat()
        guard stat(target, &info) == 0 else {
            // Nothing there yet: a new regular file (whether its directory
            // exists is for the write, or the check's probe, to find out).
            guard errno == ENOENT else { throw FileWriteError(path: path, errno: errno) }
            return .regularFile(target)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            if info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH) == 0 || access(target, W_OK) != 0 {
                throw FileWriteError(path: path, reason: "the file is read-only; stressbench does not replace it")
            }
            return .regularFile(target)
        case S_IFCHR, S_IFBLK, S_IFIFO:
            return .special(target)
        case S_IFDIR:
            throw FileWriteError(path: path, errno: EISDIR)
        default:
            throw FileWriteError(path: path, reason: "not a regular file, device or FIFO")
        }
    }

    /// A key that is equal for two paths exactly when they name the same
    /// output: standard output, the same existing file (device and inode), or
    /// the same new file (its directory resolved). A descriptor (`-`,
    /// `/dev/stderr`) that the shell pointed at a regular file has that
    /// file's key, so that `--json - >> plan.yaml` is seen to reach the plan.
    public static func identity(of path: String) -> String {
        var info = stat()
        switch try? destination(of: path) {
        case .standardOutput:
            return fstat(STDOUT_FILENO, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? "inode \(info.st_dev):\(info.st_ino)" : "stdout"
        case .descriptor(let fd):
            return fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? "inode \(info.st_dev):\(info.st_ino)" : "fd \(fd)"
        default:
            break
        }
        let target = (try? resolvingLinks(path)) ?? path
        if stat(target, &info) == 0 { return "inode \(info.st_dev):\(info.st_ino)" }
        let url = URL(fileURLWithPath: target)
        let dir = url.deletingLastPathComponent().path
        let parent = realpath(dir, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? dir
        return "path \(parent)/\(url.lastPathComponent)"
    }

    /// Creates `directory` and its missing parents, then checks a file can be
    /// created in it.
    public static func prepareDirectory(_ directory: String) throws(FileWriteError) {
        var partial = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o755) != 0 && errno != EEXIST { throw FileWriteError(path: directory, errno: errno) }
        }
        var info = stat()
        guard stat(directory, &info) == 0 else { throw FileWriteError(path: directory, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw FileWriteError(path: directory, errno: ENOTDIR) }
        try checkWritable(URL(fileURLWithPath: directory).appendingPathComponent(".stressbench").path)
    }

    // MARK: - Internals

    /// Follows symbolic links from `path` to the name that is not one (which
    /// may not exist yet), stopping at a name of an open descriptor
    /// (`/dev/stdout`, `/proc/self/fd/1`): what such a link points at
    /// (`pipe:[N]`, a file the shell redirected to) is not a path to open.
    /// Refuses a loop, as the kernel does (`ELOOP`).
    private static func resolvingLinks(_ path: String) throws(FileWriteError) -> String {
        var current = path
        for _ in 0..<40 {
            if DescriptorOutput.descriptor(named: current) != nil { return current }
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n >= 0 else { throw FileWriteError(path: path, errno: errno) }
            let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(link).path
        }
        throw FileWriteError(path: path, errno: ELOOP)
    }

    /// The atomic replace of a regular file: temporary sibling, written a
    /// chunk at a time, flushed, renamed.
    private static func replace(_ target: String, reportedAs path: String, with fill: (ChunkedOutput) throws -> Void) throws {
        var existing = stat()
        let mode: mode_t = stat(target, &existing) == 0 ? existing.st_mode & 0o7777 : 0o644
        let temp = sibling(of: target, tag: "tmp")
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileWriteError(path: path, errno: errno) }
        var failure: (any Error)?
        do {
            let output = ChunkedOutput.writing(to: fd, path: path, abandonWhen: { false })
            try fill(output)
            try output.finish()
        } catch {
            failure = error
        }
        // The umask may have narrowed the mode given to open; keep the old file's.
        if failure == nil && fchmod(fd, mode) != 0 { failure = FileWriteError(path: path, errno: errno) }
        if failure == nil && fsync(fd) != 0 { failure = FileWriteError(path: path, errno: errno) }
        if close(fd) != 0 && failure == nil { failure = FileWriteError(path: path, errno: errno) }
        if failure == nil && rename(temp, target) != 0 { failure = FileWriteError(path: path, errno: errno) }
        if let failure {
            unlink(temp)
            throw failure
        }
    }

    /// `.NAME.TAG-PID` in the directory of `path`.
    private static func sibling(of path: String, tag: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(tag)-\(getpid())").path
    }
}

/// A file or directory that could not be written, with the system's reason
/// (`Permission denied`, `No space left on device`, ...).
package struct FileWriteError: Error, LocalizedError, Sendable, CustomStringConvertible {
    /// The file or directory.
    public var path: String
    /// The system's words for the error.
    public var reason: String

    /// The error for `path` and the `errno` value `code`.
    public init(path: String, errno code: Int32) {
        self.path = path
        reason = String(cString: strerror(code))
    }

    /// The error for `path`, in words of stressbench's own.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `cannot write PATH: REASON`.
    public var description: String { "cannot write \(path.terminalSafe): \(reason)" }
    /// The reason alone (what `localizedDescription` gives).
    public var errorDescription: String? { reason }
}
