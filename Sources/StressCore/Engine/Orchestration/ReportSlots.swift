import Synchronization

/// Where workers leave their reports when they stop (once each, after the
/// measured loop: the only lock a worker takes in a trial).
final class ReportSlots: Sendable {
    private let slots: Mutex<[WorkerReport?]>
    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }
    func deposit(_ report: WorkerReport, at index: Int) { slots.withLockSeen { $0[index] = report } }
    /// How many workers have stopped.
    var deposited: Int { slots.withLockSeen { $0.count { $0 != nil } } }
    var collected: [WorkerReport] { slots.withLockSeen { $0.compactMap { $0 } } }
}
