#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Foundation

/// A failure to set up a run's outputs (not of any trial).
public struct RunError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String
}

/// Newline-delimited JSON: one trial record per line, appended and flushed to
/// disk as each trial finishes. A run killed at any point leaves every finished
/// trial readable; at worst the last line is cut short, which readers skip.
///
/// A regular file is emptied when the run starts and is not written
/// atomically, by design: it grows record by record. `-` streams to standard
/// output, and a device or FIFO is written through, never replaced; a
/// symlink is followed and a read-only file refused, as ``AtomicFile`` does.
/// A record that cannot be appended (the disk is full) is reported once on
/// standard error; the run goes on and the final files still have every record.
final class RecordStream {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let path: String
    private var warned = false

    init(path: String) throws(RunError) {
        self.path = path
        let destination: AtomicFile.Destination
        do { destination = try AtomicFile.destination(of: path) } catch { throw RunError(description: error.description) }
        switch destination {
        case .standardOutput:
            fd = STDOUT_FILENO
            ownsDescriptor = false
        case .special(let target):
            fd = open(target, O_WRONLY | O_CLOEXEC)
            ownsDescriptor = true
        case .regularFile(let target):
            fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
            ownsDescriptor = true
        }
        guard fd >= 0 else { throw RunError(description: "cannot create \(path.terminalSafe): \(String(cString: strerror(errno)))") }
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// Appends one record as a line (a single write) and flushes it to disk.
    func append(_ result: TrialResult) {
        let data: Data
        do {
            data = try ResultCoding.encoder(pretty: false).encode(result)
        } catch {
            warn("cannot encode the record of \(result.trial.id): \(error)")
            return
        }
        let line = data + Data("\n".utf8)
        let failure: Int32? = line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return n < 0 ? errno : EIO }
                offset += n
            }
            return nil
        }
        if let failure {
            warn("cannot append to \(path.terminalSafe): \(String(cString: strerror(failure)))")
        } else if fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
            // EINVAL/EROFS: a file that cannot be synced (a pipe, a device); the line is written.
            warn("cannot flush \(path.terminalSafe) to disk: \(String(cString: strerror(errno)))")
        }
    }

    /// Says once that the stream is incomplete; a run with a full disk would
    /// otherwise print the same line after every trial.
    private func warn(_ message: String) {
        guard !warned else { return }
        warned = true
        FileHandle.standardError.write(Data("stressbench: warning: \(message); the stream may miss records from here on (the final files still have them)\n".utf8))
    }

    /// Reads a stream back, skipping a final line cut short by a crash.
    static func read(_ path: String) throws -> [TrialResult] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.split(separator: UInt8(ascii: "\n")).compactMap {
            try? ResultCoding.decoder().decode(TrialResult.self, from: Data($0))
        }
    }
}

/// SIGINT/SIGTERM handling for a run: the first signal asks the run to stop;
/// a second SIGINT exits at once (status 130).
public enum Interruption {
    /// Installs the handlers (idempotent).
    public static func install() { stress_interrupts_install() }
    /// Whether a stop was asked for.
    public static var requested: Bool { stress_interrupt_count() > 0 }
    /// The signal that asked (SIGINT or SIGTERM), or nil.
    public static var signal: Int32? { requested ? stress_interrupt_signal() : nil }
}
