import CStressSupport
import Foundation

/// The memory allocator a trial process runs with (a plan dimension).
package enum AllocatorKind: String, Sendable, Codable, CaseIterable {
    /// The C library's malloc (glibc's ptmalloc on Linux).
    case system
    /// jemalloc, loaded into the trial process with `LD_PRELOAD`.
    case jemalloc
}

/// What the allocator saw during the measured window. A figure the allocator
/// cannot give is nil ("unavailable" in reports), never zero.
package struct AllocatorMetrics: Sendable, Codable, Equatable {
    /// `system` or `jemalloc`.
    public var name: String
    /// Bytes allocated per operation. jemalloc: by the worker threads inside
    /// their measured loops (its exact per-thread `thread.allocated`; nil for
    /// task workers, which move between threads). System allocator: bytes
    /// requested by every allocation call of the process over the window, as
    /// malloc-interposer counts them (nil where it is not interposed).
    public var bytesPerOp: Double?
    /// Allocation requests per operation, process-wide, over the window
    /// (jemalloc's `nrequests`, workers flushing their thread caches at both
    /// ends so their own requests are exact; under the system allocator,
    /// malloc-interposer's count of allocation calls).
    public var allocationsPerOp: Double?
    /// jemalloc's resident bytes at the end of the window.
    public var residentBytes: Int?
    /// Why figures are missing, when they are.
    public var note: String?
}

/// jemalloc, seen from inside a process (through mallctl) and from the parent
/// (where the library is).
package enum Jemalloc {
    /// Whether jemalloc is this process's allocator.
    public static var isLoaded: Bool { stress_jemalloc_loaded() != 0 }

    /// The command that installs it on Debian and Ubuntu.
    public static let installHint = "apt-get install libjemalloc2 (or libjemalloc-dev)"

    /// Why ``libraryPath`` is nil, and how to fix it.
    public static var missingMessage: String {
        if let p = ProcessInfo.processInfo.environment["STRESSBENCH_JEMALLOC"] {
            return "STRESSBENCH_JEMALLOC names \(p.terminalSafe), which does not exist; point it at libjemalloc.so.2, or unset it"
        }
        return "jemalloc is not installed (no libjemalloc.so.2 found); install it with: \(installHint)"
    }

    /// Where the shared library is: `STRESSBENCH_JEMALLOC` if set, else the
    /// usual Debian, Ubuntu and Fedora locations.
    public static var libraryPath: String? {
        if let p = ProcessInfo.processInfo.environment["STRESSBENCH_JEMALLOC"] {
            return FileManager.default.fileExists(atPath: p) ? p : nil
        }
        let candidates = [
            "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
            "/usr/lib64/libjemalloc.so.2", "/usr/local/lib/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    static func threadAllocated() -> UInt64? {
        var bytes: UInt64 = 0
        return stress_jemalloc_thread_allocated(&bytes) == 0 ? bytes : nil
    }

    static func flushThreadCache() { _ = stress_jemalloc_flush_thread_cache() }

    struct Totals {
        var requests: UInt64
        var resident: UInt64
    }

    static func totals() -> Totals? {
        var requests: UInt64 = 0, resident: UInt64 = 0, allocated: UInt64 = 0
        guard stress_jemalloc_totals(&requests, &resident, &allocated) == 0 else { return nil }
        return Totals(requests: requests, resident: resident)
    }
}
