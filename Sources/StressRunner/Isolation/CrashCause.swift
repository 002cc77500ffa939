import Foundation
import StressCore

/// The cause of a crashed trial, as the process printed it, put where people
/// look: the record's failure message (and so the table, JUnit and Markdown),
/// not only the output lines kept.
///
/// Swift's runtime prints `…: Fatal error: <message>` for `fatalError`, and
/// in a debug build for a failed `precondition`, a force-unwrapped nil, an
/// index out of range; the harness-aware primitives trap through
/// `fatalError`, so their explanations ("sync onto a queue this thread is
/// already running on") come through this way. glibc's allocator prints
/// what it found (`double free or corruption (top)`) before it aborts.
///
/// Each explanation says what the evidence shows and no more: a bare trap
/// (SIGILL, SIGTRAP, no message) is a failed check of some kind, whose
/// message a release build does not keep; a corrupted heap is memory
/// misused, which in Swift is most often a data race.
enum CrashCause {
    /// Text of a line the Swift runtime or libdispatch prints as a trap's
    /// cause (the runtime backtracer, when enabled, prints `*** Swift
    /// runtime failure: arithmetic overflow ***`).
    private static let runtimeMarkers = ["Fatal error:", "Precondition failed:", "Assertion failed:", "Swift runtime failure:",
                                         "SWIFT TASK CONTINUATION MISUSE:", "BUG IN CLIENT OF LIBDISPATCH:"]

    /// Whether `line` is a runtime's or the C library's message saying why
    /// the process died.
    static func isMessage(_ line: String) -> Bool {
        runtimeMarkers.contains { line.contains($0) } || CrashOutput.isAllocatorMessage(line)
    }

    /// The first cause line in `outputTail`, trimmed to what follows the
    /// source location ("StressQueue 'jobs': sync onto …"), or nil.
    static func printed(in outputTail: [String]) -> String? {
        for line in outputTail {
            if let range = runtimeMarkers.lazy.compactMap({ line.range(of: $0) }).first {
                return shortened(line[range.lowerBound...].trimmingCharacters(in: CharacterSet(charactersIn: " *")))
            }
            if CrashOutput.isAllocatorMessage(line) { return shortened(line.trimmingCharacters(in: .whitespaces)) }
        }
        return nil
    }

    private static func shortened(_ message: String) -> String {
        message.count > 400 ? String(message.prefix(400)) + "…" : message
    }

    /// What a trap that printed no message is (SIGILL on x86-64, SIGTRAP on
    /// ARM): a failed check, one of several kinds, which a release build
    /// reports with no message at all.
    static let silentTrapHint = "the process trapped without a message: a failed check, which a release build (-c release) "
        + "reports with no message, whether it is the standard library's (an index out of range, an arithmetic overflow, "
        + "a nil force-unwrapped; a data race on an array or dictionary often ends in one) or a precondition; rerun the trial "
        + "with a debug build (swift run stressbench …) to see which check failed and its message, or with "
        + "SWIFT_BACKTRACE=enable=yes,threads=crashed for the runtime's backtrace of the crashed thread"

    /// What glibc's allocator aborting on a corrupted heap means.
    static let corruptedHeapHint = "the allocator found its heap corrupted (memory freed twice, or written past its end "
        + "or after it was freed): in Swift code, most often a data race on a shared array, dictionary, string or class "
        + "reference, or a misuse of unsafe pointers"
}

extension TrialResult {
    /// This record with the crash's printed cause in its failure message
    /// (and, for a corrupted heap, what that means), or, for a bare trap
    /// (SIGILL, SIGTRAP) with no message and no other explanation, what a
    /// bare trap is. Unchanged for any other record.
    func namingCrashCause() -> TrialResult {
        guard outcome == .crashed, var failure else { return self }
        if let cause = CrashCause.printed(in: failure.outputTail) {
            guard !failure.message.contains(cause) else { return self }
            failure.message += ": " + cause
            if CrashOutput.isAllocatorMessage(cause) { failure.message += "; " + CrashCause.corruptedHeapHint }
        } else if failure.signal == "SIGILL" || failure.signal == "SIGTRAP", !failure.message.contains("likely cause") {
            failure.message += "; " + CrashCause.silentTrapHint
        } else {
            return self
        }
        var result = self
        result.failure = failure
        return result
    }
}
