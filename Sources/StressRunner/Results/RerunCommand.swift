import Foundation
import StressCore

/// How to rerun part of a run exactly: the executable as it was invoked and
/// the command-line overrides that were in effect. A trial's or a cell's rerun
/// command is built from it, so it selects the same trials (`--repetitions`
/// and `--allocator` change which trials exist, and so does `--baseline`,
/// whose comparison raises default repetitions) and runs them the same way
/// (`--duration`, `--warmup` and `--ops` how long, `--fuzz`,
/// `--stop-on-violation`, `--deadlock-after`, `--trial-timeout`,
/// `--schedule`, `--max-decisions`, `--explore`, `--no-shrink`,
/// `--shrink-seconds`).
package struct RerunCommand: Sendable, Codable, Equatable {
    /// The executable as the user invoked it: `stressbench` (found on PATH),
    /// `.build/release/stressbench`, or a team's own build of it.
    public var executable: String
    /// What ran the executable, when it was not invoked directly:
    /// `["swift", "run", "-c", "release"]` for `swift run -c release stressbench`.
    /// Nil when the executable is the command's first word.
    public var launcher: [String]?
    /// The overrides, as arguments: `["--repetitions", "5", "--allocator", "jemalloc"]`.
    public var options: [String]

    /// A rerun command prefix.
    public init(executable: String = "stressbench", launcher: [String]? = nil, options: [String] = []) {
        self.executable = executable
        self.launcher = launcher
        self.options = options
    }

    /// How the user ran this process, read from its `argv[0]`, so that a
    /// printed command works when pasted into the same shell:
    ///
    /// - a bare name (`stressbench`) was found on PATH: kept;
    /// - `.build/<triple>/<config>/NAME`, relative, is what `swift run`
    ///   executes from the package's root: the command becomes
    ///   `swift run -c release NAME` (or `swift run NAME` for a debug build),
    ///   since NAME alone is not on PATH after the quick start;
    /// - an absolute path is shortened to its name when `searchPath` (PATH)
    ///   finds that very file under that name, and kept whole otherwise;
    /// - any other path (`.build/release/stressbench`) is kept as typed.
    public static func invocation(argv0: String, searchPath: String?) -> (executable: String, launcher: [String]?) {
        guard !argv0.isEmpty else { return ("stressbench", nil) }
        let parts = argv0.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1, let name = parts.last, !name.isEmpty else { return (argv0, nil) }
        if parts.count == 4, parts[0] == ".build", parts[1].contains("-") {
            if parts[2] == "release" { return (name, ["swift", "run", "-c", "release"]) }
            if parts[2] == "debug" { return (name, ["swift", "run"]) }
        }
        if argv0.hasPrefix("/"), let searchPath {
            let me = URL(fileURLWithPath: argv0).resolvingSymlinksInPath().path
            for dir in searchPath.split(separator: ":") where !dir.isEmpty {
                let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
                guard FileManager.default.isExecutableFile(atPath: candidate.path) else { continue }
                // The first match is what the shell would run: the name works only if it is this file.
                return candidate.resolvingSymlinksInPath().path == me ? (name, nil) : (argv0, nil)
            }
        }
        return (argv0, nil)
    }

    /// `stressbench` with no overrides.
    public static let standard = RerunCommand()

    /// The overrides of `options` as arguments (what changes which trials
    /// exist or how they run; not `--seed`, `--only` or `--shard`, which the
    /// command itself replaces).
    public init(executable: String, launcher: [String]? = nil, overridesOf options: RunOptions) {
        var args: [String] = []
        if let n = options.repetitions { args += ["--repetitions", String(n)] }
        if let d = options.durationNs { args += ["--duration", Self.exact(d)] }
        if let w = options.warmupNs { args += ["--warmup", Self.exact(w)] }
        if let n = options.opsPerThread { args += ["--ops", String(n)] }
        if let busy = options.busyWorkers { args += ["--busy-workers", busy.description] }
        if let a = options.allocator { args += ["--allocator", a.rawValue] }
        if let f = options.fuzz { args += ["--fuzz", f.rawValue] }
        if options.stopOnViolation { args.append("--stop-on-violation") }
        if let e = options.executor { args += ["--executor", e.rawValue] }
        if let mode = options.schedule { args += ["--schedule", mode.rawValue] }
        if let n = options.maxDecisions { args += ["--max-decisions", String(n)] }
        if let e = options.exploration { args += ["--explore", ExplorationLimits.flag(e)] }
        if let ns = options.shrinkNs {
            args += ns == 0 ? ["--no-shrink"] : ["--shrink-seconds", String((ns + 999_999_999) / 1_000_000_000)]
        }
        if let d = options.deadlockAfterNs { args += ["--deadlock-after", Self.exact(d)] }
        if let t = options.timeoutNs { args += ["--trial-timeout", Self.exact(t)] }
        if let b = options.baselineFile { args += ["--baseline", b] }
        if options.allowLarge { args.append("--allow-large") }
        self.init(executable: executable, launcher: launcher, options: args)
    }

    /// The command that reruns exactly `trial` (its id, with its seed).
    public func trial(_ trial: TrialSpec, planFile: String) -> String {
        command(planFile: planFile, ["--only", trial.id, "--seed", String(trial.seed)])
    }

    /// The command that replays `trial` (`stressbench replay`) with its seed,
    /// and following `schedule`, a controlled trial's recorded decisions,
    /// exactly when given (the seed still picks each worker's operations, so
    /// it is given too: a run's `--seed` may have set one the plan does not
    /// derive). A `--schedule` among the overrides (`--schedule controlled`)
    /// is left out: the replayed one takes its place, and so is `--explore`,
    /// since a recorded schedule is followed once. `operations`, for a
    /// schedule run with fewer operations per worker than the trial's own
    /// window (a shrunk one's, an exploration's), becomes `--ops`, in place
    /// of any `--duration` or `--ops` among the overrides: the replay then
    /// ends where that run did.
    /// `busyWorkers`, for a schedule shrunk to fewer busy workers (their
    /// indices, from 0), becomes `--busy-workers`.
    public func replay(_ trial: TrialSpec, planFile: String, schedule: String?, operations: Int? = nil,
                       busyWorkers: [Int]? = nil) -> String {
        var dropped: Set<String> = ["--schedule", "--busy-workers"]
        if schedule != nil { dropped.insert("--explore") }
        if operations != nil { dropped.formUnion(["--duration", "--ops"]) }
        var overrides: [String] = []
        var i = options.startIndex
        while i < options.endIndex {
            if dropped.contains(options[i]) { i += 2; continue }
            overrides.append(options[i])
            i += 1
        }
        let selection = ["--only", trial.id, "--seed", String(trial.seed)] + (schedule.map { ["--schedule", $0] } ?? [])
            + (operations.map { ["--ops", String($0)] } ?? [])
            + (busyWorkers.map { ["--busy-workers", BusyWorkers($0).description] } ?? [])
        return ((launcher ?? []) + [executable, "replay", planFile] + selection + overrides).map(Self.quoted).joined(separator: " ")
    }

    /// The command that reruns every repetition of `cell`.
    public func cell(_ cell: CellKey, planFile: String) -> String {
        let allocator = cell.allocator.map { "/\($0)" } ?? ""
        return command(planFile: planFile, ["--only", "\(cell.experiment)/\(cell.strategy)\(allocator)/t\(cell.threads)"])
    }

    private func command(planFile: String, _ selection: [String]) -> String {
        ((launcher ?? []) + [executable, "run", planFile] + selection + options).map(Self.quoted).joined(separator: " ")
    }

    /// A duration as text that reads back to exactly the same nanoseconds.
    static func exact(_ ns: UInt64) -> String {
        for (unit, scale) in [("s", UInt64(1_000_000_000)), ("ms", 1_000_000), ("us", 1_000)] where ns % scale == 0 {
            return "\(ns / scale)\(unit)"
        }
        return "\(ns)ns"
    }

    /// `word` as a shell reads it back: as is when it is plain, else in single
    /// quotes, or, when it holds a control character (a newline in a file
    /// name, say), in bash's `$'...'` form with the character escaped, so the
    /// command stays on one line and shows nothing a terminal would act on.
    package static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_./:=@%+,".unicodeScalars.contains($0)
        }
        if plain { return word }
        guard word.unicodeScalars.contains(where: \.needsTerminalEscape) else {
            return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        var escaped = ""
        for scalar in word.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "'": escaped += "\\'"
            case _ where scalar.needsTerminalEscape:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                let width = scalar.value < 0x100 ? 2 : 4
                escaped += (scalar.value < 0x100 ? "\\x" : "\\u") + String(repeating: "0", count: Swift.max(0, width - hex.count)) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "$'" + escaped + "'"
    }
}
