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
        let concurrent: Bool
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

    /// The queue workers there may be in one trial: enough for the queues a
    /// closed loop drains, few enough that a trial that never submits pays
    /// nothing but the slots' entries in the scheduler's arrays.
    static let slots = 4

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

    /// The queue of `key` in the book, if it has one.
    func index(of key: UInt64) -> Int? { queues.firstIndex { $0.key == key } }

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
