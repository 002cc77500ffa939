/// The model's book of the blocks submitted with `StressQueue.async` and
/// `asyncAfter` under controlled scheduling: for each queue, the blocks
/// waiting (first in, first out), those running, the `sync` calls waiting
/// their turn, and the queue workers (participants of the schedule after
/// the thread workers and the main thread) that run its blocks. Read and written only under the
/// controlled scheduler's state lock.
struct QueueBook {
    /// A block waiting on its queue.
    struct Block {
        /// Its place in the order of everything submitted to queues (blocks
        /// and `sync` calls alike).
        let ticket: UInt64
        /// A barrier block runs alone on a concurrent queue.
        let barrier: Bool
        /// Submitted with `asyncAfter`: a `sync` submitted later need not
        /// wait for it (its deadline, on the virtual clock, may not have
        /// passed).
        let delayed: Bool
        /// The block, as the queue runs it (holding the queue in the model).
        let run: @Sendable () -> Void
    }

    /// One queue that has had a block submitted under control.
    struct Queue {
        let key: UInt64
        var concurrent: Bool
        /// The queue workers serving it (one for a serial queue, up to two
        /// for a concurrent one, so that two of its blocks can interleave).
        var slots: [Int]
        var pending: [Block] = []
        /// The tickets of the blocks started but not yet holding the queue
        /// in the model: a `sync` submitted after them waits for them too,
        /// or it could take the queue first.
        var starting: [UInt64] = []
        var running = 0
        var barrierRunning = false
        /// The tickets of the `sync` calls waiting for earlier blocks.
        var waitingSyncs: [UInt64] = []

        /// A place in the book no queue holds (it gave its workers up):
        /// key 0 is no queue's.
        static let vacant = Queue(key: 0, concurrent: false, slots: [])

        /// Nothing queued, running, starting or waiting its turn: the
        /// queue's workers have nothing to do for it now.
        var isIdle: Bool { pending.isEmpty && running == 0 && starting.isEmpty && waitingSyncs.isEmpty }

        /// Whether the queue's first waiting block may start now: nothing
        /// submitted before it waits (a `sync`), and the queue admits it (a
        /// serial queue runs one block, a barrier waits for the queue to be
        /// idle, nothing starts beside a barrier).
        var headCanStart: Bool {
            guard let head = pending.first else { return false }
            if waitingSyncs.contains(where: { $0 < head.ticket }) { return false }
            if !concurrent || head.barrier { return running == 0 }
            return !barrierRunning
        }
    }

    /// The queue workers there may be in one trial: enough for the queues
    /// library code keeps busy at once (eight serial queues, or four
    /// concurrent ones; an idle queue gives its workers up to a new one),
    /// few enough that a trial that never submits pays little more than the
    /// slots' entries in the scheduler's arrays, which every decision scans.
    /// A queue past them is told in the trial's record (see
    /// ``outOfSlots(_:)``).
    static let slots = 8

    /// Why a block could not be taken under control.
    enum Refusal {
        /// Control has ended (or the submitter is not the token's holder).
        case notControlled
        /// Every queue worker serves another queue.
        case noQueueWorker
    }

    /// The record's line for a queue that found every queue worker serving
    /// a busy queue.
    static func outOfSlots(_ queue: UInt64) -> String {
        "\(PrimitiveNames.describe(queue)) found every one of a controlled trial's \(slots) queue workers serving another "
            + "queue (a serial queue takes one, a concurrent queue two, in the order queues first get a block): its blocks "
            + "ran on dispatch threads the harness does not schedule; a trial that needs more queues at once is not "
            + "fully controlled"
    }

    var queues: [Queue] = []
    /// The queue each queue worker serves (-1: none yet), by slot.
    var queueOfSlot = [Int](repeating: -1, count: QueueBook.slots)
    /// Whether each queue worker runs a block now, and whether it is a barrier.
    var runningBarrier = [Bool?](repeating: nil, count: QueueBook.slots)
    /// The ticket of the block each queue worker runs.
    var runningTicket = [UInt64](repeating: 0, count: QueueBook.slots)
    var nextTicket: UInt64 = 0
    /// The queue workers' threads, joined once the trial's workers have ended.
    var threads: [OSThread] = []
    /// Each queue worker's OS thread id (0 before its thread starts), by
    /// slot: for the escape monitor, which must tell whether a queue worker
    /// is asleep in the kernel in a block it runs.
    var threadIDs = [UInt64](repeating: 0, count: QueueBook.slots)

    /// The queue of `key` in the book, if it has one.
    func index(of key: UInt64) -> Int? { queues.firstIndex { $0.key == key } }

    /// Puts `queue` in the book, in a vacant place if there is one (so a
    /// place, held as an index by a queue worker running a block, never
    /// moves), and returns its place.
    mutating func place(_ queue: Queue) -> Int {
        if let vacant = queues.firstIndex(where: { $0.key == 0 }) {
            queues[vacant] = queue
            return vacant
        }
        queues.append(queue)
        return queues.count - 1
    }

    /// The next ticket.
    mutating func ticket() -> UInt64 {
        nextTicket &+= 1
        return nextTicket
    }
}

/// The key a `sync` waits on in the model while blocks submitted before it
/// have not started: derived from the queue's own key.
enum QueueTurnKey {
    static func of(_ queue: UInt64) -> UInt64 { queue ^ 0x5E_0F1F_0000_0000 }

    /// The key a scenario's last worker at a round barrier waits on while
    /// blocks of the round are still queued or running.
    static let drained: UInt64 = 0xD2A1_0ED0_0000_0001
}
