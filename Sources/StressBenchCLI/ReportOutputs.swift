import ArgumentParser
import Foundation
import StressKit
import Synchronization

/// Output files every command that ends with a report can write: Markdown,
/// JUnit XML and HdrHistogram distributions. Each file is written atomically,
/// and each independently of the others.
struct ReportOutputs: ParsableArguments {
    @Option(help: ArgumentHelp("Write a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY).", valueName: "file"), completion: .file(extensions: ["md"]))
    var markdown: String?

    @Option(help: ArgumentHelp("Write JUnit XML to this file: one test case per trial, plus one per threshold check and baseline comparison.", valueName: "file"), completion: .file(extensions: ["xml"]))
    var junit: String?

    @Option(name: .customLong("hgrm-dir"), help: ArgumentHelp("Write one HdrHistogram percentile-distribution file (.hgrm, microseconds) per trial into this directory.", valueName: "dir"), completion: .directory)
    var hgrmDir: String?

    /// Checks, before anything runs, that these files and `others` (each with
    /// the option that names it) can be written, that none of them is one of
    /// `inputs`, that no two outputs name the same file, and creates the
    /// `.hgrm` directory: a usage error otherwise.
    func check(plus others: [(option: String, path: String?)], reading inputs: [InputFile]) throws {
        try OutputWriter.check(
            files: [("--markdown", markdown), ("--junit", junit)] + others, directories: [("--hgrm-dir", hgrmDir)], inputs: inputs)
    }

    /// Whether one of these outputs is standard output (`-`, `/dev/stdout`).
    var writesStandardOutput: Bool { [markdown, junit].contains(where: AtomicFile.isStandardOutput) }

    /// Writes the requested files with `writer`.
    func write(_ report: RunReport, into writer: inout OutputWriter) {
        writer.write(markdown) { Data(MarkdownReport.render(report).utf8) }
        writer.write(junit) { Data(JUnitReport.render(report).utf8) }
        if let hgrmDir {
            do {
                let files = try HistogramFiles.write(report, to: hgrmDir)
                writer.note("wrote \(files.count) .hgrm file(s) to \(hgrmDir.terminalSafe)")
            } catch {
                writer.failed("cannot write .hgrm files to \(hgrmDir.terminalSafe): \(error.localizedDescription)")
            }
        }
    }
}

/// Writes a command's output files one after another, each by
/// ``AtomicFile``'s rules (atomic replace of a regular file, written through
/// a device or FIFO, `-` for standard output). A file that cannot be written
/// is reported with the system's reason and the others are still written:
/// one bad path never loses the rest. What it has to say ("wrote ...",
/// errors) is kept until ``printMessages()``, so that a command prints its
/// report, with the exit code the failures make, before them.
struct OutputWriter {
    /// No "wrote" lines.
    let quiet: Bool
    /// How many files could not be written.
    private(set) var failures = 0
    /// What to say on standard error, in order.
    private(set) var messages: [String] = []
    /// The signals that had asked the command to stop when writing began: a
    /// wait for a reader (a FIFO's, a full pipe's) ends when another arrives.
    private let signalsBefore = Interruption.count

    init(quiet: Bool) { self.quiet = quiet }

    /// A usage error (exit code 2) naming the first output that is one of
    /// `inputs`, cannot be written, or names the same file as another (or
    /// standard output twice), found before any work is done; directories are
    /// created.
    static func check(files: [(option: String, path: String?)], directories: [(option: String, path: String?)],
                      inputs: [InputFile] = []) throws {
        let named = (files + directories).compactMap { o in o.path.map { (option: o.option, path: $0) } }
        try InputFile.checkNoneIsWritten(files: files, directories: directories, inputs: inputs)
        var seen: [String: (option: String, path: String)] = [:]
        for output in named {
            let identity = AtomicFile.identity(of: output.path)
            if let first = seen[identity] {
                let what = AtomicFile.isStandardOutput(output.path)
                    ? (first.path == output.path ? "standard output ('\(output.path.terminalSafe)')" : "standard output ('\(first.path.terminalSafe)', '\(output.path.terminalSafe)')")
                    : first.path == output.path ? output.path.terminalSafe : "the same file (\(first.path.terminalSafe), \(output.path.terminalSafe))"
                throw CommandError.usage("\(first.option) and \(output.option) both name \(what); give each output its own file; nothing was run")
            }
            seen[identity] = output
        }
        do throws(FileWriteError) {
            for path in files.compactMap(\.path) { try AtomicFile.checkWritable(path) }
            for dir in directories.compactMap(\.path) {
                guard !AtomicFile.isStandardOutput(dir) else {
                    throw FileWriteError(path: dir, reason: "a directory cannot be standard output")
                }
                try AtomicFile.prepareDirectory(dir)
            }
        } catch {
            throw CommandError.usage("\(error.description); nothing was run")
        }
    }

    /// Writes `contents()` to `path` (when given). A signal that arrives while
    /// it waits for a reader ends the wait, and the file is reported as not
    /// written.
    mutating func write(_ path: String?, _ contents: () throws -> Data) {
        guard let path else { return }
        let before = signalsBefore
        do {
            try AtomicFile.write(contents(), to: path, abandonWhen: { Interruption.count > before })
            if !AtomicFile.isStandardOutput(path) { note("wrote \(path.terminalSafe)") }
        } catch {
            failed("cannot write \(path.terminalSafe): \(error.localizedDescription)")
        }
    }

    /// Writes each file `fill` gives (when its path is given) a chunk at a
    /// time, all of them at once, one thread each: a stopped large run's
    /// files are hundreds of megabytes that must be written within seconds
    /// of the signal, and a machine has more than one core. What each has to
    /// say comes in the order given, as ``write(_:_:)`` would say it.
    /// `alongside` runs at the same time, on a thread of its own (the table
    /// of a large run takes as long to render as a file to write).
    mutating func write(concurrently files: [(path: String?, fill: @Sendable (ChunkedOutput) throws -> Void)],
                        alongside: @Sendable () -> Void = {}) {
        let before = signalsBefore
        let outcomes = Mutex([Int: Result<Void, any Error>]())
        DispatchQueue.concurrentPerform(iterations: files.count + 1) { i in
            guard i < files.count else { return alongside() }
            guard let path = files[i].path else { return }
            let outcome = Result { try AtomicFile.write(to: path, abandonWhen: { Interruption.count > before }, files[i].fill) }
            outcomes.withLock { $0[i] = outcome }
        }
        let results = outcomes.withLock { $0 }
        for (i, file) in files.enumerated() {
            guard let path = file.path, let outcome = results[i] else { continue }
            switch outcome {
            case .success: if !AtomicFile.isStandardOutput(path) { note("wrote \(path.terminalSafe)") }
            case .failure(let error): failed("cannot write \(path.terminalSafe): \(error.localizedDescription)")
            }
        }
    }

    /// A line to print later, unless quiet.
    mutating func note(_ line: String) {
        if !quiet { messages.append(line) }
    }

    /// Reports one failure (printed later, even when quiet).
    mutating func failed(_ message: String) {
        failures += 1
        messages.append("error: \(message)")
    }

    /// The command's exit code once the files are written: 2 when one could
    /// not be, over anything but an interruption; else `code`. A signal that
    /// arrived after the trials ended (while the files were written, say)
    /// gives its own code, 130 or 143, as one during the run does: the user
    /// asked the command to stop, and a script must see that.
    func exitCode(after code: RunExitCode, interrupted: Bool = false) -> RunExitCode {
        if code == .interrupted || code == .terminated { return code }
        if let signal = Interruption.signal { return signal == SIGTERM ? .terminated : .interrupted }
        return failures > 0 && !interrupted ? .usage : code
    }

    /// Prints what was kept to standard error, after flushing standard
    /// output (so a log never shows a "wrote" line inside the report).
    func printMessages() {
        fflush(nil)  // every C output stream: standard output is the one that matters
        for line in messages { Console.error(line) }
    }

    /// Exit code 2 when a file could not be written.
    func finish() throws {
        printMessages()
        if failures > 0 { throw ExitCode(RunExitCode.usage.rawValue) }
    }
}

/// Reading results files (`--baseline`, `compare`, `merge`).
enum ResultsFile {
    /// The report in `path`, or a usage error (exit code 2) that says what is
    /// wrong with the file.
    static func load(_ path: String) throws -> RunReport {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandError.usage("cannot read results file \(path)")
        }
        struct Header: Decodable { var schema: String? }
        guard let header = try? ResultCoding.decoder().decode(Header.self, from: data) else {
            throw CommandError.usage("\(path) is not a stressbench results file (not a JSON object)")
        }
        guard header.schema == RunReport.currentSchema else {
            throw CommandError.usage("\(path) has schema '\(header.schema ?? "none")'; this stressbench reads '\(RunReport.currentSchema)'")
        }
        do {
            return try ResultCoding.decoder().decode(RunReport.self, from: data)
        } catch {
            throw CommandError.usage("\(path) does not match schema \(RunReport.currentSchema): \(error)")
        }
    }
}
