import ArgumentParser
import Foundation
import StressKit

/// Output files every command that ends with a report can write: Markdown,
/// JUnit XML and HdrHistogram distributions. Each file is written atomically,
/// and each independently of the others.
struct ReportOutputs: ParsableArguments {
    @Option(help: ArgumentHelp("Write a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY).", valueName: "file"))
    var markdown: String?

    @Option(help: ArgumentHelp("Write JUnit XML to this file: one test case per trial, plus one per threshold check and baseline comparison.", valueName: "file"))
    var junit: String?

    @Option(name: .customLong("hgrm-dir"), help: ArgumentHelp("Write one HdrHistogram percentile-distribution file (.hgrm, microseconds) per trial into this directory.", valueName: "dir"))
    var hgrmDir: String?

    /// Checks, before anything runs, that these files and `others` can be
    /// written (and creates the `.hgrm` directory): a usage error otherwise.
    func check(plus others: [String?]) throws {
        try OutputWriter.check(files: [markdown, junit] + others, directories: [hgrmDir])
    }

    /// Writes the requested files with `writer`.
    func write(_ report: RunReport, into writer: inout OutputWriter) {
        writer.write(markdown) { Data(MarkdownReport.render(report).utf8) }
        writer.write(junit) { Data(JUnitReport.render(report).utf8) }
        if let hgrmDir {
            do {
                let files = try HistogramFiles.write(report, to: hgrmDir)
                if !writer.quiet { Console.error("wrote \(files.count) .hgrm file(s) to \(hgrmDir)") }
            } catch {
                writer.failed("cannot write .hgrm files to \(hgrmDir): \(error.localizedDescription)")
            }
        }
    }
}

/// Writes a command's output files one after another, each atomically. A file
/// that cannot be written is reported with the system's reason and the others
/// are still written: one bad path never loses the rest. ``finish()`` then
/// ends the command with exit code 2.
struct OutputWriter {
    /// No "wrote" lines.
    let quiet: Bool
    /// How many files could not be written.
    private(set) var failures = 0

    init(quiet: Bool) { self.quiet = quiet }

    /// A usage error (exit code 2) naming the first path that cannot be
    /// written, found before any work is done; directories are created.
    static func check(files: [String?], directories: [String?]) throws {
        do {
            for path in files.compactMap({ $0 }) { try AtomicFile.checkWritable(path) }
            for dir in directories.compactMap({ $0 }) { try AtomicFile.prepareDirectory(dir) }
        } catch {
            throw CommandError.usage("\(error.description); nothing was run")
        }
    }

    /// Writes `contents()` to `path` (when given) atomically.
    mutating func write(_ path: String?, _ contents: () throws -> Data) {
        guard let path else { return }
        do {
            try AtomicFile.write(contents(), to: path)
            if !quiet { Console.error("wrote \(path)") }
        } catch {
            failed("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Reports one failure.
    mutating func failed(_ message: String) {
        failures += 1
        Console.error("error: \(message)")
    }

    /// Exit code 2 when a file could not be written.
    func finish() throws {
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
