@testable import StressCore
@testable import StressRunner
import StressKitTestSupport

/// Hand-made interleavings of the shapes the controlled scheduler records,
/// for the renderer's tests and the docs page's example.
enum TraceFixtures {
    /// The counter's lost update under `unsynchronized` with 2 workers,
    /// shrunk: worker 0 reads 0 and is preempted, worker 1 increments from
    /// 0 to 1, worker 0 writes its stale 1 over it.
    static let lostUpdate: [TraceEvent] = [
        TraceEvent(worker: 0, kind: .operationStart, name: "increment"),
        TraceEvent(worker: 0, kind: .value, name: "read count", value: 0, file: "Counter/Counter.swift", line: 41),
        TraceEvent(worker: 0, kind: .switch, name: "preempted", preempted: true),
        TraceEvent(worker: 1, kind: .operationStart, name: "increment"),
        TraceEvent(worker: 1, kind: .value, name: "read count", value: 0, file: "Counter/Counter.swift", line: 41),
        TraceEvent(worker: 1, kind: .value, name: "write count =", value: 1, file: "Counter/Counter.swift", line: 42),
        TraceEvent(worker: 1, kind: .operationEnd, name: "increment"),
        TraceEvent(worker: 1, kind: .switch, name: "finished", preempted: false),
        TraceEvent(worker: 0, kind: .value, name: "write count =", value: 1, file: "Counter/Counter.swift", line: 42),
        TraceEvent(worker: 0, kind: .operationEnd, name: "increment"),
        TraceEvent(worker: 0, kind: .switch, name: "finished", preempted: false),
    ]

    /// The shrinking record of ``lostUpdate``.
    static let lostUpdateShrink = ScheduleRecord.Shrinking(
        eventsBefore: 4_812, eventsAfter: 11, preemptionsBefore: 3, preemptionsAfter: 1, encoded: "w0:2,w1:3,w0:1",
        attempts: 57, timedOut: false)

    /// The counter's failed trial as its record would say it.
    static func lostUpdateResult() -> TrialResult {
        var r = Synthetic.trial(experiment: "counter-lost-update", strategy: "unsynchronized", repetition: 0,
                                opsPerSecond: 1, latencyNs: 1, outcome: .violated)
        r.trial.schedule = .controlled
        r.violations = ViolationReport(count: 1, samples: [
            ViolationSample(thread: nil, operation: "final", step: nil, opNumber: nil, message: "final count 1 != 2 increments done"),
        ])
        r.schedule = ScheduleRecord(mode: .controlled, decisions: 6, encoded: "w0:2,w1:3,w0:1", controlled: .full)
        r.trace = lostUpdate
        r.shrink = lostUpdateShrink
        return r
    }

    /// Two workers that take two locks in opposite orders and deadlock,
    /// each left waiting for the lock the other holds.
    static let lockOrderDeadlock: [TraceEvent] = [
        TraceEvent(worker: 0, kind: .operationStart, name: "transfer(a, b)"),
        TraceEvent(worker: 0, kind: .acquire, name: "the lock 'a'", file: "Ledger/Ledger.swift", line: 30),
        TraceEvent(worker: 0, kind: .acquired, name: "the lock 'a'", file: "Ledger/Ledger.swift", line: 30),
        TraceEvent(worker: 0, kind: .switch, name: "preempted", preempted: true),
        TraceEvent(worker: 1, kind: .operationStart, name: "transfer(b, a)"),
        TraceEvent(worker: 1, kind: .acquire, name: "the lock 'b'", file: "Ledger/Ledger.swift", line: 30),
        TraceEvent(worker: 1, kind: .acquired, name: "the lock 'b'", file: "Ledger/Ledger.swift", line: 30),
        TraceEvent(worker: 1, kind: .acquire, name: "the lock 'a'", file: "Ledger/Ledger.swift", line: 31),
        TraceEvent(worker: 1, kind: .switch, name: "blocked on the lock 'a'", preempted: false),
        TraceEvent(worker: 0, kind: .acquire, name: "the lock 'b'", file: "Ledger/Ledger.swift", line: 31),
        TraceEvent(worker: 0, kind: .switch, name: "blocked on the lock 'b'", preempted: false),
        TraceEvent(worker: 0, kind: .stuck, name: "the lock 'b'", file: "Ledger/Ledger.swift", line: 31),
        TraceEvent(worker: 1, kind: .stuck, name: "the lock 'a'", file: "Ledger/Ledger.swift", line: 31),
    ]

    /// The wait-for cycle of ``lockOrderDeadlock``, as the stall report has it.
    static let lockOrderCycle = [
        "worker 0 holds the lock 'a' and waits for the lock 'b', held by worker 1",
        "worker 1 holds the lock 'b' and waits for the lock 'a', held by worker 0",
    ]

    /// The deadlocked trial's record.
    static func lockOrderResult() -> TrialResult {
        var r = Synthetic.trial(experiment: "lock-order", strategy: "unsynchronized", repetition: 0,
                                opsPerSecond: 1, latencyNs: 1, outcome: .deadlock)
        r.measurement = nil
        r.trial.schedule = .controlled
        r.failure = FailureReport(message: "deadlock: worker 0, worker 1 can never go on")
        r.stall = StallReport(kind: .deadlock, stalledForNs: 0, workers: [], cycle: lockOrderCycle, summary: "deadlock")
        r.schedule = ScheduleRecord(mode: .controlled, decisions: 9, encoded: "w0:3,w1:4,w0:2", controlled: .full)
        r.trace = lockOrderDeadlock
        return r
    }

    /// The same lost update unshrunk, after worker 0's first 10 increments:
    /// a run long enough to fold.
    static let longLostUpdate: [TraceEvent] = increments(worker: 0, 10) + [
        TraceEvent(worker: 0, kind: .operationStart, name: "increment"),
        TraceEvent(worker: 0, kind: .value, name: "read count", value: 10, file: "Counter/Counter.swift", line: 41),
        TraceEvent(worker: 0, kind: .point, name: "", file: "Counter/Counter.swift", line: 41),
        TraceEvent(worker: 0, kind: .switch, name: "preempted", preempted: true),
        TraceEvent(worker: 1, kind: .operationStart, name: "increment"),
        TraceEvent(worker: 1, kind: .value, name: "read count", value: 10, file: "Counter/Counter.swift", line: 41),
        TraceEvent(worker: 1, kind: .point, name: "", file: "Counter/Counter.swift", line: 41),
        TraceEvent(worker: 1, kind: .value, name: "write count =", value: 11, file: "Counter/Counter.swift", line: 42),
        TraceEvent(worker: 1, kind: .operationEnd, name: "increment"),
        TraceEvent(worker: 1, kind: .switch, name: "finished", preempted: false),
        TraceEvent(worker: 0, kind: .value, name: "write count =", value: 11, file: "Counter/Counter.swift", line: 42),
        TraceEvent(worker: 0, kind: .operationEnd, name: "increment"),
    ]

    /// `operations` increments by `worker`, each a read and a write with
    /// a point between them.
    static func increments(worker: Int, _ operations: Int) -> [TraceEvent] {
        (0..<operations).flatMap { n in [
            TraceEvent(worker: worker, kind: .operationStart, name: "increment"),
            TraceEvent(worker: worker, kind: .value, name: "read count", value: n, file: "Counter/Counter.swift", line: 41),
            TraceEvent(worker: worker, kind: .point, name: "", file: "Counter/Counter.swift", line: 41),
            TraceEvent(worker: worker, kind: .value, name: "write count =", value: n + 1, file: "Counter/Counter.swift", line: 42),
            TraceEvent(worker: worker, kind: .operationEnd, name: "increment"),
        ] }
    }
}
