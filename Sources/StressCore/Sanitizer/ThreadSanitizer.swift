import CStressSupport

/// Whether this process runs under ThreadSanitizer, and what a build needs
/// to: the one place the rest of the harness asks.
package enum ThreadSanitizer {
    /// True when this executable was built with `--sanitize=thread` (its
    /// runtime is linked in): found at run time, not assumed from the build.
    package static let isActive = stress_tsan_active() != 0

    /// The name records and plans give the sanitizer (`sanitizer: thread`).
    package static let name = "thread"

    /// The command that builds `stressbench` with ThreadSanitizer.
    package static let buildCommand = "swift build -c release --sanitize=thread --product stressbench"
}
