import ArgumentParser
import Foundation
import StressKit

/// Output files every command that ends with a report can write: Markdown,
/// JUnit XML and HdrHistogram distributions. Each file is written atomically.
struct ReportOutputs: ParsableArguments {
    @Option(help: ArgumentHelp("Write a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY).", valueName: "file"))
    var markdown: String?

    @Option(help: ArgumentHelp("Write JUnit XML to this file: one test case per trial, plus one per threshold check and baseline comparison.", valueName: "file"))
    var junit: String?

    @Option(name: .customLong("hgrm-dir"), help: ArgumentHelp("Write one HdrHistogram percentile-distribution file (.hgrm, microseconds) per trial into this directory.", valueName: "dir"))
    var hgrmDir: String?

    /// Writes the requested files; `quiet` suppresses the "wrote" lines.
    func write(_ report: RunReport, quiet: Bool) throws {
        if let markdown { try OutputFile.write(Data(MarkdownReport.render(report).utf8), to: markdown, quiet: quiet) }
        if let junit { try OutputFile.write(Data(JUnitReport.render(report).utf8), to: junit, quiet: quiet) }
        if let hgrmDir {
            do {
                let files = try HistogramFiles.write(report, to: hgrmDir)
                if !quiet { Console.error("wrote \(files.count) .hgrm file(s) to \(hgrmDir)") }
            } catch {
                throw CommandError.failure("cannot write .hgrm files to \(hgrmDir): \(error.localizedDescription)")
            }
        }
    }
}

/// Atomic writes with the command line's messages.
enum OutputFile {
    static func write(_ data: Data, to path: String, quiet: Bool) throws {
        do {
            try AtomicFile.write(data, to: path)
            if !quiet { Console.error("wrote \(path)") }
        } catch {
            throw CommandError.failure("cannot write \(path): \(error.localizedDescription)")
        }
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
