import CStressSupport

/// The name a worker's thread gives itself: `sb-worker-3`. ThreadSanitizer
/// prints it beside its own thread number in every report, which is how a
/// report's thread becomes a worker (the parent reads the report after the
/// trial process is gone, so nothing else could tell them apart). Debuggers
/// and `top -H` show it too. Under 16 bytes, Linux's limit, for every worker.
package enum WorkerThreadName {
    private static let prefix = "sb-worker-"

    /// Names the calling thread after worker `worker` (at the start of its thread).
    package static func adopt(worker: Int) {
        _ = stress_thread_set_name(prefix + String(worker))
    }

    /// The worker a thread of this name is, or nil for any other thread.
    package static func worker(named name: some StringProtocol) -> Int? {
        guard name.hasPrefix(prefix) else { return nil }
        return Int(name.dropFirst(prefix.count))
    }
}
