import Foundation

/// The cause of a crashed trial, as the process printed it, put where people
/// look: the record's failure message (and so the table, JUnit and Markdown),
/// not only the output tail.
///
/// Swift's runtime prints `…: Fatal error: <message>` for `fatalError`,
/// `precondition` in debug builds, a force-unwrapped nil, an index out of
/// range; the harness-aware primitives trap through `fatalError`, so their
/// explanations ("sync onto a queue this thread is already running on") come
/// through this way. A release build (`-c release`) drops the messages of
/// `precondition` and `assert`, and a trap then prints nothing: the record
/// says so, and points to `fatalError` or a debug build.
enum CrashCause {
    /// Lines the runtime prints as a trap's cause.
    private static let markers = ["Fatal error:", "Precondition failed:", "Assertion failed:",
                                  "SWIFT TASK CONTINUATION MISUSE:"]

    /// The first cause line in `outputTail`, trimmed to what follows the
    /// source location ("StressQueue 'jobs': sync onto …"), or nil.
    static func printed(in outputTail: [String]) -> String? {
        for line in outputTail {
            for marker in markers {
                guard let range = line.range(of: marker) else { continue }
                let message = line[range.lowerBound...].trimmingCharacters(in: .whitespaces)
                return message.count > 400 ? String(message.prefix(400)) + "…" : message
            }
        }
        return nil
    }

    /// What to say about a trap that printed no cause: release builds drop
    /// `precondition` messages.
    static let silentTrapHint = "the process printed no cause: a release build (-c release) drops the messages of "
        + "precondition and assert, so a failed check there is a bare trap; use fatalError for checks whose "
        + "message matters, or rerun the trial with a debug build (swift run stressbench …) to see it"
}

extension TrialResult {
    /// This record with the crash's printed cause in its failure message, or,
    /// for a bare trap (SIGILL, SIGTRAP) with no cause and no other
    /// explanation, the hint that release builds drop `precondition`
    /// messages. Unchanged for any other record.
    func namingCrashCause() -> TrialResult {
        guard outcome == .crashed, var failure else { return self }
        if let cause = CrashCause.printed(in: failure.outputTail) {
            guard !failure.message.contains(cause) else { return self }
            failure.message += ": " + cause
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
