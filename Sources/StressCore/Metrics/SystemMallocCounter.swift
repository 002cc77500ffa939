import CStressSupport
#if canImport(MallocInterposerSwift)
import MallocInterposerSwift
#endif

/// Allocation counts under the system allocator, from ordo-one's
/// malloc-interposer (as package-benchmark counts them): on Linux the linked
/// library's malloc and free replace the C library's for the whole process,
/// and count each call while counting is on. Under jemalloc (`LD_PRELOAD`,
/// which comes first) the interposer sees nothing, and jemalloc's own
/// statistics are read instead.
enum SystemMallocCounter {
    /// What was counted between ``start()`` and ``stop()``, every thread of
    /// the process included.
    struct Totals: Sendable {
        /// Allocation calls (`malloc`, `calloc`, `realloc`, aligned forms).
        var allocations: Int64
        /// Bytes those calls asked for.
        var bytes: Int64
    }

    /// Whether the interposer sees this process's allocations: a probe
    /// allocation, counted or not. Read once (the answer cannot change).
    static let isActive: Bool = {
        #if canImport(MallocInterposerSwift)
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        stress_malloc_probe()
        MallocInterposerSwift.unhook()
        let seen = MallocInterposerSwift.getStatistics().mallocCount > 0
        MallocInterposerSwift.initialize()
        return seen
        #else
        return false
        #endif
    }()

    /// Zeroes the counters and starts counting; false when the interposer is
    /// not active (nothing to count with).
    static func start() -> Bool {
        #if canImport(MallocInterposerSwift)
        guard isActive else { return false }
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        return true
        #else
        return false
        #endif
    }

    /// Stops counting and returns what was counted since ``start()``.
    static func stop() -> Totals? {
        #if canImport(MallocInterposerSwift)
        guard isActive else { return nil }
        MallocInterposerSwift.unhook()
        let s = MallocInterposerSwift.getStatistics()
        return Totals(allocations: Int64(s.mallocCount), bytes: Int64(s.mallocBytesCount))
        #else
        return nil
        #endif
    }
}
