#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes files so that a reader never sees half of one: the bytes go to a
/// temporary file in the same directory, which is flushed and then renamed over
/// the target (an atomic replace on POSIX file systems).
public enum AtomicFile {
    /// Replaces `path` with `data`. Throws a ``FileWriteError`` with the
    /// system's reason; the target is then untouched and no temporary file is left.
    public static func write(_ data: Data, to path: String) throws {
        let temp = sibling(of: path, tag: "tmp")
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileWriteError(path: path, errno: errno) }
        var failure: Int32?
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = writeSome(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { failure = n < 0 ? errno : EIO; return }
                offset += n
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == nil { failure = errno }
        if failure == nil && rename(temp, path) != 0 { failure = errno }
        if let failure {
            unlink(temp)
            throw FileWriteError(path: path, errno: failure)
        }
    }

    /// Replaces `path` with `text` in UTF-8.
    public static func write(_ text: String, to path: String) throws { try write(Data(text.utf8), to: path) }

    /// Checks, before any work, that ``write(_:to:)`` will be able to write
    /// `path`: it is not a directory, and a file can be created (and removed)
    /// next to it.
    public static func checkWritable(_ path: String) throws(FileWriteError) {
        var info = stat()
        if stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { throw FileWriteError(path: path, errno: EISDIR) }
        let probe = sibling(of: path, tag: "probe")
        let fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileWriteError(path: path, errno: errno) }
        close(fd)
        unlink(probe)
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

    /// `.NAME.TAG-PID` in the directory of `path`.
    private static func sibling(of path: String, tag: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(tag)-\(getpid())").path
    }
}

/// `write(2)`, out of reach of ``AtomicFile/write(_:to:)``'s name.
private func writeSome(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }

/// A file or directory that could not be written, with the system's reason
/// (`Permission denied`, `No space left on device`, ...).
public struct FileWriteError: Error, LocalizedError, Sendable, CustomStringConvertible {
    /// The file or directory.
    public var path: String
    /// The system's words for the error.
    public var reason: String

    /// The error for `path` and the `errno` value `code`.
    public init(path: String, errno code: Int32) {
        self.path = path
        reason = String(cString: strerror(code))
    }

    /// `cannot write PATH: REASON`.
    public var description: String { "cannot write \(path): \(reason)" }
    /// The reason alone (what `localizedDescription` gives).
    public var errorDescription: String? { reason }
}
