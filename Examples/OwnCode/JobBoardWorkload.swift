import StressKit
import Synchronization

/// The workload that tests ``JobBoard`` as it is: every step is `.unguarded`,
/// because the board synchronizes itself; the harness sees inside it through
/// its harness-aware primitives and the fuzz point in the work.
///
/// Invariants: no more jobs run at once than the board has slots (checked
/// inside every job), and after the run the board's tally equals the jobs the
/// workers saw run. Deadlocks (lock order, `main.sync` against the main
/// thread) are the watchdog's to report, with their cycle; a `sync` onto the
/// board's own queue traps with the wrapper's message.
public struct JobBoardWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "job-board",
        summary: "your own code: a job board with a private queue, a lock and a condition (Examples/OwnCode)",
        parameters: [
            .choice("variant", "correct, or the injected bug: " + JobBoard.Bug.allCases.map(\.rawValue).joined(separator: ", "),
                    default: "correct", choices: ["correct"] + JobBoard.Bug.allCases.map(\.rawValue)),
            .integer("slots", "jobs that may run at once", default: 1, range: 1...64),
            .number("status_ratio", "fraction of operations that read the status", default: 0.05, range: 0...0.5),
        ]
    )

    /// One trial's board, and what the workers saw.
    public final class State: Sendable {
        let board: JobBoard
        /// Jobs each worker ran, one cache line each (only its own worker writes it).
        let ran: CacheLineArray<Int>
        /// Jobs running right now, across workers.
        let running = Atomic<Int>(0)
        let threads: Int

        init(board: JobBoard, threads: Int) {
            self.board = board
            self.threads = threads
            ran = CacheLineArray(count: threads)
        }

        deinit { ran.deallocate() }

        var totalRan: Int { (0..<threads).reduce(0) { $0 + ran[$1].pointee } }
    }

    let bug: JobBoard.Bug?
    let slots: Int
    let statusRatio: Double

    public init(parameters: WorkloadParameters) throws {
        let variant = try parameters.text("variant")
        bug = JobBoard.Bug(rawValue: variant)
        slots = try parameters.integer("slots")
        statusRatio = try parameters.number("status_ratio")
    }

    public func makeState(threads: Int) -> State {
        State(board: JobBoard(slots: slots, bug: bug), threads: threads)
    }

    public func operations() -> [StressOperation<State>] {
        let share = (1 - statusRatio) / 2
        let post = StressOperation<State>("post", weight: share, steps: [
            .unguarded("post") { state, frame in
                state.board.post(frame.random.next(below: 1 << 20))
                return .next
            },
        ])
        let run = StressOperation<State>("run", weight: share, steps: [
            .unguarded("run") { state, frame in
                var crowded = 0
                let slots = state.board.slots
                let didRun = state.board.runNext { _ in
                    let now = state.running.add(1, ordering: .relaxed).newValue
                    if now > slots { crowded = now }
                    fuzzPoint()  // the middle of a job: a point of our own
                    state.running.subtract(1, ordering: .relaxed)
                }
                if didRun { state.ran[frame.thread].pointee += 1 }
                return crowded == 0 ? .next : .violation("\(crowded) jobs ran at once on a board with \(slots) slot(s)")
            },
        ])
        let status = StressOperation<State>("status", weight: statusRatio, steps: [
            .unguarded("status") { state, _ in
                let status = state.board.status()
                return status.busy <= state.board.slots ? .next
                    : .violation("status shows \(status.busy) slots busy of \(state.board.slots)")
            },
        ])
        return [post, run, status]
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        let tally = state.board.finishedCount, ran = state.totalRan
        return tally == ran ? [] : ["the board's tally says \(tally) jobs finished, but the workers ran \(ran)"]
    }
}
