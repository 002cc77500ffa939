#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// A worker's handle on its own line of the board.
struct SiteProbe: @unchecked Sendable {
    // @unchecked: a pointer into the SiteBoard's raw memory, written only by the
    // worker that owns this probe (see SiteBoard).
    let slot: UnsafeMutablePointer<UInt64>

    /// Publishes a site (one relaxed store).
    @inline(__always)
    func publish(_ word: SiteWord) { stress_store_relaxed(slot, word.raw) }

    /// Publishes the number of completed operations (one relaxed store).
    @inline(__always)
    func completed(_ count: Int) { stress_store_relaxed(slot + SiteBoard.Word.completed, UInt64(truncatingIfNeeded: count)) }

    /// The site this worker published last (only its owner calls this).
    @inline(__always)
    func current() -> SiteWord { SiteWord(raw: stress_load_relaxed(slot)) }

    /// Publishes the calling OS thread as this worker's, so the watchdog can
    /// tell a thread that is stuck from one the OS has not run.
    func identifyThread() {
        stress_store_relaxed(slot + SiteBoard.Word.threadID, stress_thread_id())
        stress_store_relaxed(slot + SiteBoard.Word.cpuClock, stress_thread_cpu_clock())
    }

    /// Says that a task worker has no thread of its own.
    func clearThread() {
        stress_store_relaxed(slot + SiteBoard.Word.threadID, 0)
        stress_store_relaxed(slot + SiteBoard.Word.cpuClock, 0)
    }

    /// A probe for frames made outside a trial: it writes (atomically) to one
    /// scratch line nobody reads.
    static let detached: SiteProbe = {
        let p = UnsafeMutablePointer<UInt64>.allocate(capacity: SiteBoard.strideWords)
        p.initialize(repeating: 0, count: SiteBoard.strideWords)
        return SiteProbe(slot: p)
    }()
}
