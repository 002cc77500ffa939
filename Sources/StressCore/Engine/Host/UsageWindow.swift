/// The process's resource counters at the start and end of the measured window,
/// read by the coordinator (never by a worker).
final class UsageWindow: @unchecked Sendable {
    // @unchecked: written only by the coordinating thread, before and after the
    // workers' measured loops, and read by it afterwards.
    private var start: ResourceUsage.Reading?
    private var end: ResourceUsage.Reading?
    private(set) var allocatorStart: Jemalloc.Totals?
    private(set) var allocatorEnd: Jemalloc.Totals?
    /// The system allocator's calls over the window (malloc-interposer), when
    /// jemalloc is not loaded and the interposer sees this process.
    private(set) var systemMalloc: SystemMallocCounter.Totals?
    private var countingSystemMalloc = false

    /// Opens the window. With `board`, the workers' own CPU clocks are read
    /// too: call it while every worker waits at a gate.
    func open(workersOf board: SiteBoard? = nil) {
        start = .now(workersOf: board)
        allocatorStart = Jemalloc.totals()
        // Last, so the coordinator's own readings are not counted.
        countingSystemMalloc = allocatorStart == nil && SystemMallocCounter.start()
    }

    /// Closes the window (with the board `open` was given).
    func close(workersOf board: SiteBoard? = nil) {
        // First, for the same reason.
        if countingSystemMalloc { systemMalloc = SystemMallocCounter.stop() }
        end = .now(workersOf: board)
        allocatorEnd = Jemalloc.totals()
    }

    var span: (start: ResourceUsage.Reading, end: ResourceUsage.Reading)? {
        guard let start, let end else { return nil }
        return (start, end)
    }
}
