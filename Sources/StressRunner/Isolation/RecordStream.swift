import StressCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Foundation

/// A failure to set up a run's outputs (not of any trial).
package struct RunError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String
}

/// Newline-delimited JSON: one trial record per line, appended and flushed to
/// disk as each trial finishes. A run killed at any point leaves every finished
/// trial readable; at worst the last line is cut short, which readers skip.
///
/// A regular file is emptied when the run starts and is not written
/// atomically, by design: it grows record by record. `-` and `/dev/stdout`
/// stream to standard output, another descriptor's name (`/dev/stderr`) to
/// that descriptor, and a device or FIFO is written through, never replaced
/// (a FIFO is waited on for a reader, as ``AtomicFile`` does); a symlink is
/// followed and a read-only file refused, as ``AtomicFile`` does.
/// A record that cannot be appended (the disk is full) is reported once on
/// standard error; the run goes on and the final files still have every record.
///
/// A wait for a reader (a FIFO's or a pipe's) ends with an error when a signal
/// arrives during it: `abandonWhen` says so.
final class RecordStream {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let path: String
    private var warned = false
    /// How many signals asked the run to stop so far.
    private let signals: () -> Int

    /// Opens the stream at `path`. `signals` counts the signals that asked
    /// the run to stop so far: a wait during which it grows is abandoned.
    init(path: String, signals: @escaping () -> Int = { 0 }) throws(RunError) {
        self.path = path
        self.signals = signals
        let destination: AtomicFile.Destination
        do { destination = try AtomicFile.destination(of: path) } catch { throw RunError(description: error.description) }
        switch destination {
        case .standardOutput:
            fd = STDOUT_FILENO
            ownsDescriptor = false
        case .descriptor(let number):
            do { try DescriptorOutput.checkWritable(number, path: path) } catch { throw RunError(description: error.description) }
            fd = number
            ownsDescriptor = false
        case .special(let target):
            let before = signals()
            do {
                fd = try DescriptorOutput.open(special: target, path: path, readerWait: AtomicFile.fifoReaderWait,
                                               abandonWhen: { signals() > before })
            } catch {
                throw RunError(description: error.description)
            }
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
        append(contentsOf: [result][...])
    }

    /// Appends `results`, one line each, in a single write, flushed to disk
    /// when `flush` says so. A finished trial's record is flushed: a run
    /// killed the next moment keeps it. The thousands of `skipped` records of
    /// an interrupted run are not: they hold no result, the final files have
    /// them too, and one `fsync` of a large file on a disk other work keeps
    /// busy took seconds, which a stop that a container allows ten seconds
    /// cannot spend.
    func append(contentsOf results: ArraySlice<TrialResult>, flush: Bool = true) {
        guard !results.isEmpty else { return }
        if results.count < 64 {
            // A finished trial's record: one small write, no chunk buffer.
            let (lines, failures) = Self.encodeLines(Array(results))
            if let failure = failures.first { warn(failure) }
            write(lines, flush: flush)
            return
        }
        let before = signals()
        let signals = self.signals
        let output = ChunkedOutput.writing(to: fd, path: path, abandonWhen: { signals() > before })
        let failures = Self.writeLines(results, to: output)
        if let failure = failures.first { warn(failure) }
        do throws(FileWriteError) {
            try output.finish()
        } catch {
            warn("cannot append to \(path.terminalSafe): \(error.reason)")
            return
        }
        if flush { sync() }
    }

    /// Appends `line`, one JSON object that is no trial record (a hunt's,
    /// ``HuntLine``), as a line of its own, flushed to disk; `trial` names
    /// the trial it is about in a warning.
    func append(line: some Encodable, about trial: String) {
        do {
            write(try ResultCoding.encoder(pretty: false).encode(line) + [UInt8(ascii: "\n")], flush: true)
        } catch {
            warn("cannot encode a line about \(trial): \(error)")
        }
    }

    /// Writes `lines` in a single write, flushed to disk when `flush` says so.
    private func write(_ lines: Data, flush: Bool) {
        let before = signals()
        do throws(FileWriteError) {
            try DescriptorOutput.writeAll(lines, to: fd, path: path, abandonWhen: { signals() > before })
        } catch {
            warn("cannot append to \(path.terminalSafe): \(error.reason)")
            return
        }
        if flush { sync() }
    }

    /// Flushes what was written to disk.
    private func sync() {
        if fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
            // EINVAL/EROFS: a file that cannot be synced (a pipe, a device); the lines are written.
            warn("cannot flush \(path.terminalSafe) to disk: \(String(cString: strerror(errno)))")
        }
    }

    /// `results` as JSON lines, in order, and the records that could not be
    /// encoded: ``writeLines(_:to:)`` gathered in memory.
    static func encodeLines(_ results: [TrialResult]) -> (lines: Data, failures: [String]) {
        var failures: [String] = []
        let lines = ChunkedOutput.collecting { failures = writeLines(results, to: $0) }
        return (Data(lines), failures)
    }

    /// Appends `results` to `out` as JSON lines, in order, and returns the
    /// records that could not be encoded (left out). A batch (the skipped
    /// records of an interrupted run) is spliced from one encoding per kind
    /// of record, and goes out a chunk at a time: a stopped large run's
    /// stream is a hundred megabytes, and a signal's sender may wait only
    /// seconds.
    static func writeLines(_ results: some Collection<TrialResult>, to out: ChunkedOutput) -> [String] {
        let encoder = ResultCoding.encoder(pretty: false)
        // One record alone is simply encoded.
        var splicer = results.count >= 64
            ? RecordSplicer(render: { try? Array(encoder.encode($0)) }, plain: ResultCoding.isPlainJSONString) : nil
        var failures: [String] = []
        for result in results {
            do {
                if splicer?.append(result, to: out) != true { out.append(try encoder.encode(result)) }
                out.append(byte: UInt8(ascii: "\n"))
            } catch {
                failures.append("cannot encode the record of \(result.trial.id): \(error)")
            }
        }
        return failures
    }

    /// Says once that the stream is incomplete; a run with a full disk would
    /// otherwise print the same line after every trial.
    private func warn(_ message: String) {
        guard !warned else { return }
        warned = true
        FileHandle.standardError.write(Data("stressbench: warning: \(message); the stream may miss records from here on (the final files still have them)\n".utf8))
    }

    /// Reads a stream back, skipping a final line cut short by a crash, with
    /// each hunt's line (``HuntLine``) folded into its trial's record.
    static func read(_ path: String) throws -> [TrialResult] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var records: [TrialResult] = []
        for line in data.split(separator: UInt8(ascii: "\n")).map({ Data($0) }) {
            if let hunt = HuntLine.decode(line) {
                hunt.fold(into: &records)
            } else if let record = try? ResultCoding.decoder().decode(TrialResult.self, from: line) {
                records.append(record)
            }
        }
        return records
    }
}

/// The skipped records of a stopped run on their way to its NDJSON stream,
/// written by a thread of their own while the command writes its other
/// files. ``wait()`` returns once they are all written (or the write failed,
/// which the stream reports).
package final class StreamTail: Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// Starts writing `records` to `stream`, unflushed.
    init(writing records: ArraySlice<TrialResult>, to stream: RecordStream) {
        // The stream is handed over to the thread: the runner that opened it
        // touches it again only after wait() (a hunt's lines), which the
        // semaphore orders after the thread's last write, so the thread is
        // its only user meanwhile.
        nonisolated(unsafe) let stream = stream
        let done = done
        Thread {
            stream.append(contentsOf: records, flush: false)
            done.signal()
        }.start()
    }

    /// Waits until the records are written.
    package func wait() {
        done.wait()
        done.signal()  // a second wait returns at once
    }
}

/// SIGINT/SIGTERM handling for a run: the first signal asks the run to stop;
/// a second SIGINT exits at once (status 130).
package enum Interruption {
    /// Installs the handlers (idempotent).
    public static func install() { stress_interrupts_install() }
    /// Whether a stop was asked for.
    public static var requested: Bool { stress_interrupt_count() > 0 }
    /// How many SIGINT/SIGTERM signals arrived so far (0 before ``install()``):
    /// a wait for a reader during which this grows is abandoned.
    public static var count: Int { Int(stress_interrupt_count()) }
    /// The signal that asked (SIGINT or SIGTERM), or nil.
    public static var signal: Int32? { requested ? stress_interrupt_signal() : nil }
}
