import ArgumentParser
import Foundation
import StressCore

/// `stressbench-dev linearizability logs`: the checker on Porcupine's test
/// logs, one tab-separated line per file, for scripts/porcupine-compare.sh.
struct PorcupineLogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "Check Porcupine test logs (Jepsen etcd logs, kv logs); print one tab-separated line per file.",
        discussion: "Columns: file name, format (etcd or kv), operations, pending operations, verdict, memo states, median seconds per check, runs. Each file is checked at least 3 times and until 0.2 s have passed (at most 1,001 times)."
    )

    @Argument(help: "The log files.")
    var files: [String]

    @Option(help: "The time limit of one check, in seconds (past it the verdict is unknown).")
    var timeLimit = 60.0

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name at least one log file") }
        guard timeLimit > 0 else { throw ValidationError("--time-limit must be above 0") }
    }

    func run() throws {
        let timing = CheckerTiming(timeLimit: .milliseconds(Int64(timeLimit * 1_000)))
        print("#file\tformat\toperations\tpending\tverdict\tstates\tmedian_seconds\truns")
        for path in files {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw PorcupineLogs.ReadError(description: "\(path): cannot be read as UTF-8 text")
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let format = try PorcupineLogs.format(of: lines, path: path)
            let measurement: CheckerTiming.Measurement
            let operations: Int, pending: Int
            switch format {
            case .etcd:
                let history = try PorcupineLogs.etcd(lines, path: path)
                (operations, pending) = (history.count, history.filter { $0.result == nil }.count)
                measurement = timing.measure(history, model: EtcdRegisterModel())
            case .kv:
                let history = try PorcupineLogs.kv(lines, path: path)
                (operations, pending) = (history.count, history.filter { $0.result == nil }.count)
                measurement = timing.measure(history, model: AppendKeyValueModel())
            }
            let name = (path as NSString).lastPathComponent
            print([name, format.rawValue, "\(operations)", "\(pending)", measurement.verdict.rawValue,
                   "\(measurement.statesExplored)", String(format: "%.9f", measurement.median), "\(measurement.seconds.count)"]
                .joined(separator: "\t"))
        }
    }
}
