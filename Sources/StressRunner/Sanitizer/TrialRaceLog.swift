import CStressSupport
import Foundation
import StressCore

/// Where one trial process's ThreadSanitizer reports go, and what the parent
/// makes of them once the process has ended.
///
/// A directory of the trial's own under the temporary directory holds the
/// suppressions file and the log TSan writes (`report.<pid>`: it appends the
/// process id). Without it the reports would go to the child's standard
/// error, which nobody reads, mixed with every other trial's.
package struct TrialRaceLog {
    /// The trial's directory.
    let directory: String

    /// A fresh directory for one trial's reports, or nil when none could be made.
    package static func make() -> TrialRaceLog? {
        var template = Array((NSTemporaryDirectory() + "/stressbench-tsan.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        let log = TrialRaceLog(directory: String(cString: made))
        guard FileManager.default.createFile(atPath: log.suppressionsPath, contents: Data(ThreadSanitizerSuppressions.text.utf8)) else {
            log.remove()
            return nil
        }
        return log
    }

    var suppressionsPath: String { directory + "/suppressions.txt" }

    /// `TSAN_OPTIONS` for the trial process: the user's own (`inherited`),
    /// then what the collection needs, which wins where both set a flag.
    /// - `log_path`: the reports to this directory.
    /// - `halt_on_error=0`: every race of the trial, not only the first.
    /// - `exitcode=0`: TSan otherwise turns a clean exit with reports into
    ///   status 66, which would read as a crash after the record.
    /// - `history_size=7`: the most history per thread TSan keeps, so the
    ///   earlier access of a race still has its stack in a long trial.
    /// - `suppressions`: the shipped false positives of the Swift runtime
    ///   (``ThreadSanitizerSuppressions``), unless the user's options name a
    ///   suppressions file of their own (TSan reads one): theirs is kept.
    /// - `atexit_sleep_ms=0`, unless the user's options set it: TSan's
    ///   default sleeps a second at exit while a second thread lives, for
    ///   races of threads still running. A trial process exits after its
    ///   record, when its workers' races are all in the log; the sleep
    ///   could only add those of a thread the code under test left running
    ///   past the trial, and it slowed every trial (a trade documented in
    ///   docs/data-races.md). (`stressbench`'s own trial
    ///   processes have it from the executable's TSan defaults too; a
    ///   team's test binary, which `StressTest` runs again for a trial, has
    ///   only this.)
    package func options(inherited: String?) -> String {
        var ours = "log_path=\"\(directory)/report\" halt_on_error=0 exitcode=0 history_size=7"
        let inherited = inherited ?? ""
        if !inherited.contains("suppressions=") { ours += " suppressions=\"\(suppressionsPath)\"" }
        if !inherited.contains("atexit_sleep_ms=") { ours += " atexit_sleep_ms=0" }
        return inherited.isEmpty ? ours : inherited + " " + ours
    }

    /// The unique data races the trial's process reported (paths under
    /// `root` shown relative to it); the directory is removed.
    package func collect(root: String? = FileManager.default.currentDirectoryPath) -> [ViolationSample] {
        defer { remove() }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let text = names.filter { $0.hasPrefix("report") }.sorted()
            .compactMap { name -> String? in
                let path = directory + "/" + name
                return SwiftDemangle.simplified(file: path) ?? (try? String(contentsOfFile: path, encoding: .utf8))
            }
            .joined(separator: "\n")
        return ThreadSanitizerReport.races(in: text, root: root)
    }

    /// Sends this process's own reports to the log until ``restoreThisProcess()``:
    /// for a trial run in this process (TSan's options are read once, at
    /// start, so only where its reports go can change; its suppressions are
    /// whatever `TSAN_OPTIONS` gave the process).
    package func redirectThisProcess() { stress_sanitizer_set_report_path(directory + "/report") }

    /// Sends this process's reports back to standard error.
    package func restoreThisProcess() { stress_sanitizer_set_report_path("stderr") }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

extension TrialResult {
    /// Adds a trial's data races to its violations: counted, kept in full,
    /// and a trial that passed its checks becomes `violated` (a plan that
    /// expects `violated` is then satisfied by a race alone). A trial that
    /// ended otherwise (crashed, timed out) keeps its outcome.
    package mutating func record(dataRaces: [ViolationSample]) {
        guard !dataRaces.isEmpty else { return }
        violations.count += dataRaces.count
        violations.samples += dataRaces
        if outcome == .passed { outcome = .violated }
    }
}
