import Foundation
import StressCore

/// ThreadSanitizer's text reports, read back into data-race violations.
///
/// A report is the block between two lines of `=`; its first line says what
/// it is (`WARNING: ThreadSanitizer: data race`, or `Swift access race` for
/// a Swift exclusivity race), then come the accesses, each a header (`Write
/// of size 8 at 0x… by thread T2:`) and its frames (`#0 function file:line:col
/// (module+0x…)`), the memory's location, and the threads it names (`Thread
/// T2 'sb-worker-1' (tid=…)`). Only the two data-race kinds become
/// violations; TSan's other reports (a lock-order inversion, a thread leak)
/// are not races and are left to its own output.
package enum ThreadSanitizerReport {
    /// How many frames of each stack a violation keeps, innermost first.
    static let framesKept = 8

    /// The unique data races in `text` (one or more TSan reports), in the
    /// order TSan first reported each: two reports are one race when their
    /// accesses are the same pair (read or write, innermost frame), in either
    /// order. Paths under `root` are shown relative to it.
    package static func races(in text: String, root: String? = nil) -> [ViolationSample] {
        var seen: Set<[String]> = []
        var races: [ViolationSample] = []
        for block in reports(in: text) {
            guard let race = parse(block, root: root) else { continue }
            let key = race.accesses.map { "\($0.write) \($0.frames.first ?? "?")" }.sorted()
            if seen.insert(key).inserted { races.append(.dataRace(race.accesses, location: race.location)) }
        }
        return races
    }

    /// The lines of each report, without the `=` rules around it.
    static func reports(in text: String) -> [[Substring]] {
        var blocks: [[Substring]] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("WARNING: ThreadSanitizer:") {
                if let current { blocks.append(current) }
                current = [line]
            } else if line.hasPrefix("==================") || line.hasPrefix("SUMMARY: ThreadSanitizer") {
                if let c = current { blocks.append(c) }
                current = nil
            } else {
                current?.append(line)
            }
        }
        if let current { blocks.append(current) }
        return blocks
    }

    /// One report's race, or nil when it is not a data race or names fewer
    /// than two accesses.
    static func parse(_ lines: [Substring], root: String?) -> (accesses: [ViolationSample.Access], location: String?)? {
        guard let first = lines.first, first.contains("ThreadSanitizer: data race") || first.contains("ThreadSanitizer: Swift access race") else {
            return nil
        }
        let names = threadNames(lines)
        var accesses: [ViolationSample.Access] = []
        var location: String?
        var inAccess = false
        for line in lines.dropFirst() {
            let trimmed = line.drop { $0 == " " }
            if let header = accessHeader(trimmed) {
                let (worker, thread) = identify(header.thread, names: names)
                accesses.append(ViolationSample.Access(write: header.write, worker: worker, thread: thread, frames: []))
                inAccess = true
            } else if trimmed.hasPrefix("#"), inAccess, let frame = frame(trimmed, root: root) {
                // The stack stops where the harness's thread machinery starts
                // (below the workload's step there is only the engine's loop).
                if isThreadStart(frame), !accesses[accesses.count - 1].frames.isEmpty { inAccess = false; continue }
                // Thunks the compiler made (a protocol witness, a partial
                // apply) say nothing a reader needs, below the first frame.
                if frame.hasSuffix("<compiler-generated>"), !accesses[accesses.count - 1].frames.isEmpty { continue }
                if accesses[accesses.count - 1].frames.count < framesKept { accesses[accesses.count - 1].frames.append(frame) }
            } else if trimmed.hasPrefix("Location is ") {
                location = describeLocation(trimmed.dropFirst("Location is ".count), names: names)
                inAccess = false
            } else if !trimmed.hasPrefix("#") {
                inAccess = false
            }
        }
        guard accesses.count >= 2 else { return nil }
        return (Array(accesses.prefix(2)), location)
    }

    /// An access's header: whether it writes, and the thread (`main thread`,
    /// `thread T2`), or nil when the line is not one.
    static func accessHeader(_ line: Substring) -> (write: Bool, thread: Substring)? {
        guard line.hasSuffix(":"), let by = line.range(of: " by ", options: .backwards) else { return nil }
        let what = line[..<by.lowerBound].lowercased()
        let kinds = ["write of size", "read of size", "modifying access", "read-only access"]
        guard kinds.contains(where: { what.hasPrefix($0) || what.hasPrefix("previous " + $0) || what.hasPrefix("atomic " + $0)
                || what.hasPrefix("previous atomic " + $0) }) else { return nil }
        var thread = line[by.upperBound...].dropLast()
        // "thread T1 (mutexes: write M0)": the locks held are not the thread.
        if let paren = thread.range(of: " (") { thread = thread[..<paren.lowerBound] }
        return (what.contains("write") || what.contains("modifying"), thread)
    }

    /// TSan's thread numbers and the names threads gave themselves: `T2` to
    /// `sb-worker-1`, from the report's `Thread T2 'sb-worker-1' (tid=…` lines.
    static func threadNames(_ lines: [Substring]) -> [Substring: Substring] {
        var names: [Substring: Substring] = [:]
        for line in lines {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("Thread T") else { continue }
            let parts = trimmed.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, parts[2].hasPrefix("'"), let close = parts[2].dropFirst().firstIndex(of: "'") else { continue }
            names[parts[1]] = parts[2][parts[2].index(after: parts[2].startIndex)..<close]
        }
        return names
    }

    /// The worker a thread is (its name is ``WorkerThreadName``'s), and how
    /// to call it: `worker 1`, `main thread`, `thread T5 'name'`.
    static func identify(_ thread: Substring, names: [Substring: Substring]) -> (worker: Int?, thread: String) {
        guard thread.hasPrefix("thread ") else { return (nil, String(thread)) }
        let id = thread.dropFirst("thread ".count)
        guard let name = names[id] else { return (nil, String(thread)) }
        if let worker = WorkerThreadName.worker(named: name) { return (worker, "worker \(worker)") }
        return (nil, "\(thread) '\(name)'")
    }

    /// A frame as a violation shows it: `function at file:line`, demangled,
    /// the path relative to `root` when under it; nil for a frame TSan could
    /// not symbolize at all.
    static func frame(_ line: Substring, root: String?) -> String? {
        // "#3 function file:line:col (module+0x…) (BuildId: …)": drop the
        // number, the build id and the module.
        var text = line
        if let buildID = text.range(of: " (BuildId: ") { text = text[..<buildID.lowerBound] }
        var words = text.split(separator: " ").dropFirst()
        if let last = words.last, last.hasPrefix("("), last.hasSuffix(")") { words = words.dropLast() }
        guard !words.isEmpty else { return nil }
        var place: Substring?
        // The place: `file:line:col`, a bare path (line 0), `<null>`, `<compiler-generated>`.
        if words.count > 1, let last = words.last, last.contains(":") || last.hasPrefix("/") || last.hasPrefix("<") {
            place = last
            words = words.dropLast()
        }
        let function = SwiftDemangle.readable(words.joined(separator: " "))
        guard function != "<null>" else { return nil }
        guard let place, place != "<null>" else { return function }
        // file:line:col → file:line (the column rarely helps a reader).
        var pieces = place.split(separator: ":")
        if pieces.count >= 3, Int(pieces[pieces.count - 1]) != nil, Int(pieces[pieces.count - 2]) != nil { pieces.removeLast() }
        var file = pieces.joined(separator: ":")
        if let root, file.hasPrefix(root + "/") { file = String(file.dropFirst(root.count + 1)) }
        return "\(function) at \(file)"
    }

    /// Whether a frame is where a harness thread starts: a worker's thread
    /// body, a task driver, the thread launcher. What is above it is the trial.
    static func isThreadStart(_ frame: String) -> Bool {
        ["ThreadDriver.run", "TaskDriver.", "OSThread.spawn", "ThreadDriver.runOperations", "ThreadDriver.runRounds"].contains { frame.contains($0) }
    }

    /// "heap block of size 24 at 0x7b… allocated by main thread:" without the
    /// address (which no two runs share) and the colon.
    static func describeLocation(_ text: Substring, names: [Substring: Substring] = [:]) -> String {
        var words = text.split(separator: " ")
        if let at = words.firstIndex(of: "at"), at + 1 < words.count, words[at + 1].hasPrefix("0x") { words.removeSubrange(at...(at + 1)) }
        words.removeAll { $0.hasPrefix("(") && $0.hasSuffix(")") && $0.contains("+0x") }
        if words.last?.hasSuffix(":") == true { words[words.count - 1] = words[words.count - 1].dropLast() }
        // "allocated by thread T1": the worker, when it is one.
        if words.count >= 2, words[words.count - 2] == "thread" {
            let (_, thread) = identify(words.suffix(2).joined(separator: " ")[...], names: names)
            words.removeLast(2)
            words.append(Substring(thread))
        }
        let described = words.joined(separator: " ")
        return described
    }
}
