import Foundation
import StressCore

/// Which lines of a trial process's output its record keeps, and which a
/// report shows: the ones that explain how it ended, not just the last ones.
///
/// A crashing process prints the runtime's message (`Fatal error: …`),
/// then the crash handler's report (where each worker was, one line per
/// worker), and may have printed a great deal before. The last lines alone
/// are the end of that report: with a hundred workers, a hundred times
/// "finished". So the lines kept are, in the order printed:
///
/// - every line that says why the process died (``isCause(_:)``): the Swift
///   runtime's and the C library's messages, the runtime backtracer's header;
/// - the crash report's first line and the first lines after it;
/// - then as many of the last lines as fit.
///
/// Before choosing, stack-trace frames are left out (counted in one line)
/// and a run of workers in the same phase of the harness's own ("finished",
/// "at a start barrier") is one line: `workers 2 to 99: finished`.
package enum CrashOutput {
    /// Lines a record keeps.
    static let recordLimit = 20
    /// The crash report's lines kept after its first, at most.
    static let reportLines = 4
    /// The crashed thread's first frames kept after the backtracer's
    /// `Thread 3 crashed:` (the first names the failed check: `Swift runtime
    /// failure: arithmetic overflow`, `Array.subscript.getter`).
    static let crashedFrames = 2
    /// Cause lines kept, at most (a message can repeat, one per thread).
    static let causeLines = 3

    /// What the crash handler (CStressSupport's shim.c) starts its report with.
    static let reportHeader = "stressbench: the trial process got "
    /// What it starts each worker's line with.
    private static let workerPrefix = "stressbench:   worker "

    /// Starts of glibc's allocator messages (it prints one, then aborts).
    private static let allocatorMarkers = [
        "double free or corruption", "corrupted size vs. prev_size", "corrupted double-linked list", "free(): ",
        "malloc(): ", "realloc(): ", "munmap_chunk(): ", "malloc_consolidate(): ", "*** stack smashing detected",
    ]

    /// Whether `line` says why the process died: a runtime's or the C
    /// library's message (``CrashCause/isMessage(_:)``), or the runtime
    /// backtracer's header (`*** Program crashed: …`, `Thread 3 crashed:`),
    /// when the user enabled it (`SWIFT_BACKTRACE=enable=yes`).
    static func isCause(_ line: String) -> Bool {
        CrashCause.isMessage(line) || line.contains("*** Program crashed:") || isCrashedThread(line)
    }

    /// The backtracer's `Thread 3 crashed:` (or `Thread 3 "name" crashed:`).
    private static func isCrashedThread(_ line: String) -> Bool {
        line.hasPrefix("Thread ") && line.hasSuffix(" crashed:")
    }

    /// Whether `line` is glibc's allocator reporting a corrupted heap.
    static func isAllocatorMessage(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        return allocatorMarkers.contains { trimmed.hasPrefix($0) }
    }

    /// The lines a record keeps of a process's `output` (see the type).
    static func kept(_ output: [UInt8], limit: Int = recordLimit) -> [String] {
        select(condensed(String(decoding: output, as: UTF8.self)), limit: limit, markGaps: true)
    }

    /// The output's lines without empty ones, stack-trace frames counted in
    /// one line, and runs of workers in one phase of the harness's as one line.
    static func condensed(_ text: String) -> [String] {
        var lines: [String] = []
        var frames = 0
        var run: (first: Int, last: Int, phase: String)?
        func flushRun() {
            guard let r = run else { return }
            lines.append(r.first == r.last ? "\(workerPrefix)\(r.first): \(r.phase)" : "stressbench:   workers \(r.first) to \(r.last): \(r.phase)")
            run = nil
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            // A frame that names the failed check (the backtracer's inlined
            // `Swift runtime failure: …`) is a cause, not a frame to drop.
            if PlanRunner.isStackFrame(raw) && !isCause(String(raw)) || raw.hasPrefix("Current stack trace:") {
                flushRun()
                frames += 1
                continue
            }
            if frames > 0 { lines.append("(\(frames) stack-trace lines omitted)") }
            frames = 0
            let line = String(raw)
            if let (worker, phase) = harnessPhase(line) {
                if let r = run, r.phase == phase, r.last + 1 == worker {
                    run = (r.first, worker, phase)
                    continue
                }
                flushRun()
                run = (worker, worker, phase)
                continue
            }
            flushRun()
            lines.append(line)
        }
        flushRun()
        if frames > 0 { lines.append("(\(frames) stack-trace lines omitted)") }
        return lines
    }

    /// Phases of the harness's own in which where a worker is says nothing
    /// about a crash (its site is left out when runs of them are joined).
    private static let harnessPhases: [String] = [WorkerPhase.finished, .atBarrier, .betweenOperations, .starting, .idle, .pacing]
        .map { WorkerPhase.descriptions[Int($0.rawValue)] }

    /// A crash-report line of a worker in a phase of the harness's own: its
    /// number and the phase's words; nil for any other line.
    private static func harnessPhase(_ line: String) -> (worker: Int, phase: String)? {
        guard line.hasPrefix(workerPrefix) else { return nil }
        let rest = line.dropFirst(workerPrefix.count)
        guard let colon = rest.firstIndex(of: ":"), let worker = Int(rest[..<colon]) else { return nil }
        let what = rest[rest.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        // "label, phase" or just "phase".
        guard let phase = harnessPhases.first(where: { what == $0 || what.hasSuffix(", " + $0) }) else { return nil }
        return (worker, phase)
    }

    /// At most `limit` of `lines`, in their order: the cause lines and the
    /// crash report's first lines, then the last lines. With `markGaps`, a
    /// line saying how many were left out stands where they were (and counts
    /// towards the limit).
    package static func select(_ lines: [String], limit: Int, markGaps: Bool = false) -> [String] {
        guard lines.count > limit else { return lines }
        var wanted = Set<Int>()
        for i in lines.indices where isCause(lines[i]) && wanted.count < causeLines {
            wanted.insert(i)
            if isCrashedThread(lines[i]) {
                for frame in (i + 1)..<Swift.min(lines.count, i + 1 + crashedFrames) { wanted.insert(frame) }
            }
        }
        if let header = lines.lastIndex(where: { $0.hasPrefix(reportHeader) }) {
            for i in header..<Swift.min(lines.count, header + 1 + reportLines) { wanted.insert(i) }
        }
        // Never more wanted lines than half the room: the last lines matter too.
        var priority = wanted.sorted()
        if priority.count > limit / 2 { priority = Array(priority.prefix(limit / 2)) }
        // Fill from the end, leaving room for the gap markers that will be needed.
        var chosen = Set(priority)
        var i = lines.count - 1
        while i >= 0 {
            if !chosen.contains(i) {
                var trial = chosen
                trial.insert(i)
                guard size(of: trial, markGaps: markGaps) <= limit else { break }
                chosen = trial
            }
            i -= 1
        }
        var kept: [String] = []
        var skipped = 0
        for i in lines.indices {
            if chosen.contains(i) {
                if skipped > 0 && markGaps { kept.append("(\(skipped) lines omitted)") }
                skipped = 0
                kept.append(lines[i])
            } else {
                skipped += 1
            }
        }
        if skipped > 0 && markGaps { kept.append("(\(skipped) lines omitted)") }
        return kept
    }

    /// How many lines keeping `chosen` makes: themselves and, with `markGaps`,
    /// one marker per gap between or before them.
    private static func size(of chosen: Set<Int>, markGaps: Bool) -> Int {
        guard markGaps else { return chosen.count }
        let sorted = chosen.sorted()
        var gaps = 0
        var previous = -1
        for i in sorted {
            if i > previous + 1 { gaps += 1 }
            previous = i
        }
        return chosen.count + gaps
    }
}
