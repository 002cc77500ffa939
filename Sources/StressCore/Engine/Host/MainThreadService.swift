import CStressSupport
import Dispatch
import Foundation
import Synchronization

/// The main thread of a trial's process: it serves the main queue and the
/// main actor, so workloads can use `DispatchQueue.main` and `@MainActor`
/// code, and it takes part in the trial as a participant of its own (a
/// harness-aware main-queue block it runs holds the main queue; a lock it
/// waits for is seen), so a worker that `sync`s to main while main waits for
/// that worker is a `deadlock` with its cycle.
///
/// The trial's coordination runs on another thread. In a trial process
/// (`stressbench _trial`) the main thread does nothing but run its run loop,
/// which drains the main queue on the main thread itself; in an in-process
/// run on the main thread (a test, `--in-process`) the trial runs on a
/// thread of its own while the main thread runs its run loop until it is
/// done. (Not `dispatchMain()`: on Linux it parks the main thread and other
/// threads drain the main queue, so a `DispatchQueue.main.sync` block would
/// run on its caller.)
package enum MainThreadService {
    /// Makes the main thread a participant of `board`'s trial, when it next
    /// runs a main-queue block (at once, in a trial process).
    static func attach(_ board: SiteBoard) {
        let line = UInt(bitPattern: board.line(board.mainParticipant))
        DispatchQueue.main.async {
            // Only for the trial still running: a main thread that was not
            // serving the queue while it ran would otherwise pick up a line
            // that is gone.
            guard let current = RunningTrial.board, UInt(bitPattern: current.line(current.mainParticipant)) == line else { return }
            stress_participant_attach(UnsafeMutablePointer(bitPattern: line))
        }
    }

    /// Undoes ``attach(_:)`` (on the main thread, in the main queue's order).
    static func detach(_ board: SiteBoard) {
        if stress_is_main_thread() != 0 {
            stress_participant_attach(nil)
            return
        }
        DispatchQueue.main.async { stress_participant_attach(nil) }
    }

    /// Whether the main thread serves the main queue itself now (its run
    /// loop runs: a trial process, or ``run(_:)`` called on the main
    /// thread): only then can it take part in a controlled trial's schedule,
    /// taking the run token for the main-queue blocks it runs. Elsewhere (a
    /// test whose main thread runs the test runner) nobody is known to run
    /// the main queue's blocks in order, so they run free, as on any thread
    /// the harness does not schedule.
    static var isServing: Bool { serving.load(ordering: .acquiring) }

    private static let serving = Atomic<Bool>(false)

    /// The main thread's OS thread id, once it serves the main queue (0
    /// before): for the escape monitor, which must tell whether the main
    /// thread is asleep in the kernel in a block it runs under control.
    static var threadID: UInt64 { mainThreadID.load(ordering: .acquiring) }

    private static let mainThreadID = Atomic<UInt64>(0)

    /// Says that the main thread serves the main queue from now on, for
    /// good (a trial process, whose main thread runs its run loop). Called
    /// on the main thread.
    package static func servesForGood() {
        mainThreadID.store(stress_thread_id(), ordering: .releasing)
        serving.store(true, ordering: .releasing)
    }

    /// Runs `work` so that the main queue is served while it runs: on the
    /// calling thread when that is not the main thread (whoever owns the
    /// main thread serves it, or not), else on a thread of its own while the
    /// main thread runs its run loop until `work` returns.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        guard stress_is_main_thread() != 0 else { return work() }
        let box = ResultBox<T>()
        let thread = Thread {
            box.set(work())
            // Wake the run loop, which may be waiting for a source.
            DispatchQueue.main.async {}
        }
        thread.stackSize = 8 << 20
        mainThreadID.store(stress_thread_id(), ordering: .releasing)
        let served = serving.exchange(true, ordering: .acquiringAndReleasing)
        thread.start()
        while box.get() == nil {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
        }
        serving.store(served, ordering: .releasing)
        return box.get()!
    }

    /// The value a thread hands back to the main thread.
    private final class ResultBox<T: Sendable>: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var value: T?

        func set(_ v: T) {
            lock.lock()
            value = v
            lock.unlock()
        }

        func get() -> T? {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }
}
