import CStressSupport
import Dispatch

/// A drop-in for `DispatchQueue` that a trial can see: a team swaps it in for
/// test builds through a typealias and leaves its code as it is.
///
/// ```swift
/// #if STRESS_TESTS
/// typealias Queue = StressQueue
/// #else
/// typealias Queue = DispatchQueue
/// #endif
///
/// private let queue = Queue(label: "com.example.jobs")
/// func add(_ job: Job) { queue.sync { jobs.append(job) } }
/// ```
///
/// **Outside a trial** it is the `DispatchQueue` it wraps (``underlying``):
/// every call is the queue's own plus one thread-local check.
///
/// **Inside a trial**, on a worker, the main thread or a dispatch thread
/// running one of its blocks:
/// - it publishes, without allocating, that the thread waits for the queue
///   (a `sync` until its block runs) and that the thread running a block
///   holds it (and, through ``init(label:qos:attributes:autoreleaseFrequency:target:)``'s
///   `target`, every queue it targets), so a deadlock through queues is a
///   `deadlock` with its wait-for cycle;
/// - a `sync` onto a queue the thread is already running on (directly or
///   through its target) traps with a message saying so, where libdispatch
///   would trap without a word (Linux) or deadlock;
/// - it has fuzz points at submit, block entry and block exit.
///
/// A concurrent queue's plain blocks hold it shared; barrier blocks
/// (`flags: .barrier`) hold it exclusively. ``main`` is the main queue: its
/// blocks run on the trial process's main thread, which serves it.
public final class StressQueue: @unchecked Sendable {
    // @unchecked: immutable after init; the DispatchQueue is thread-safe.

    /// The queue underneath, for what this wrapper does not cover.
    public let underlying: DispatchQueue
    /// The label it was made with.
    public let label: String
    /// Whether it is concurrent (plain blocks run together).
    public let isConcurrent: Bool
    /// The keys a block on this queue holds: its own, then its targets'.
    private let keys: [UInt64]
    private let isMain: Bool

    /// The main queue.
    public static let main = StressQueue(main: ())

    /// A new queue, as `DispatchQueue(label:qos:attributes:autoreleaseFrequency:target:)`.
    /// A `target` that is a StressQueue is seen by the trial too: a block on
    /// this queue holds the target as well.
    ///
    /// - Parameters:
    ///   - label: The queue's label, which stall reports name it by.
    ///   - qos: Its quality of service.
    ///   - attributes: `.concurrent` for a concurrent queue; none for a serial one.
    ///   - autoreleaseFrequency: As for `DispatchQueue`.
    ///   - target: The queue its blocks run on, or nil.
    public init(
        label: String, qos: DispatchQoS = .unspecified, attributes: DispatchQueue.Attributes = [],
        autoreleaseFrequency: DispatchQueue.AutoreleaseFrequency = .inherit, target: StressQueue? = nil
    ) {
        underlying = DispatchQueue(label: label, qos: qos, attributes: attributes, autoreleaseFrequency: autoreleaseFrequency,
                                   target: target?.underlying)
        self.label = label
        isConcurrent = attributes.contains(.concurrent)
        isMain = false
        keys = [Participation.key(underlying)] + (target?.keys ?? [])
        PrimitiveNames.register(keys[0], "the queue '\(label)'")
    }

    private init(main: Void) {
        underlying = .main
        label = "main"
        isConcurrent = false
        isMain = true
        keys = [WaitKey.mainQueue]
    }

    deinit {
        if !isMain {
            PrimitiveNames.unregister(keys[0])
            PrimitiveNames.unregister(QueueTurnKey.of(keys[0]))
        }
    }

    /// Runs `work` on the queue and waits for it, as `DispatchQueue.sync`.
    /// (The wrappers are inlinable, so that outside a trial each is the
    /// overlay's own overload, specialized in the caller, plus one
    /// thread-local load.)
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    ///   - work: The work to run on the queue.
    @inlinable
    public func sync(file: StaticString = #fileID, line: UInt = #line, execute work: () -> Void) {
        guard stress_participant() != nil else { return underlying.sync(execute: work) }
        syncInTrial(flags: [], file: file, line: line, execute: work)
    }

    /// Runs `work` on the queue and waits for it, as `DispatchQueue.sync`.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    ///   - work: The work to run on the queue.
    /// - Returns: What `work` returns.
    @inlinable
    public func sync<T>(file: StaticString = #fileID, line: UInt = #line, execute work: () throws -> T) rethrows -> T {
        guard stress_participant() != nil else { return try underlying.sync(execute: work) }
        return try syncInTrial(flags: [], file: file, line: line, execute: work)
    }

    /// Runs `work` on the queue (as a barrier with `flags: .barrier`) and
    /// waits for it, as `DispatchQueue.sync(flags:execute:)`.
    ///
    /// - Parameters:
    ///   - flags: `.barrier` for exclusive access on a concurrent queue.
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    ///   - work: The work to run on the queue.
    /// - Returns: What `work` returns.
    @inlinable
    public func sync<T>(flags: DispatchWorkItemFlags, file: StaticString = #fileID, line: UInt = #line,
                        execute work: () throws -> T) rethrows -> T {
        guard stress_participant() != nil else { return try underlying.sync(flags: flags, execute: work) }
        return try syncInTrial(flags: flags, file: file, line: line, execute: work)
    }

    @usableFromInline
    func syncInTrial<T>(flags: DispatchWorkItemFlags, file: StaticString? = nil, line: UInt = 0,
                        execute work: () throws -> T) rethrows -> T {
        let shared = isConcurrent && !flags.contains(.barrier)
        if let held = keys.first(where: { stress_holds($0) != 0 }) {
            let through = held == keys[0] ? "" : " (through its target, \(PrimitiveNames.describe(held)))"
            fatalError("StressQueue '\(label)': sync onto a queue this thread is already running on\(through): "
                       + "libdispatch would trap or deadlock here")
        }
        Participation.fuzz(.beforeAcquire)
        if let file { Participation.locate(file: file, line: line) }
        let caller = stress_participant()
        stress_wait_begin(keys[0] | (shared ? WaitKey.sharedBit : 0), UInt64(shared ? STRESS_WAIT_QUEUE_SHARED : STRESS_WAIT_QUEUE))
        // Under control the model decides when the queue (and its targets)
        // is free for this block; the real `sync` then never waits. A `sync`
        // to main is a step of the main thread, which the worker waits for.
        let controlled = Participation.controlled
        if isMain, let controlled, controlled.worker != controlled.scheduler.mainSlot,
           controlled.scheduler.blockOnMainSync(controlled.worker) {
            return try syncToControlledMain(controlled, caller: caller, execute: work)
        }
        if let controlled {
            // After the blocks submitted before it (first in, first out),
            // and before those submitted after it.
            let ticket = isMain ? nil : controlled.scheduler.enterQueueLine(controlled.worker, queue: keys[0])
            for key in keys { controlled.acquire(key, shared: shared) }
            if let ticket { controlled.scheduler.leaveQueueLine(controlled.worker, queue: keys[0], ticket: ticket) }
        }
        defer {
            if let controlled { for key in keys.reversed() { controlled.release(key) } }
        }
        let result = try underlying.sync(flags: flags) { () throws -> T in
            // libdispatch runs a sync block on the calling thread where it
            // can (the main queue's always on the main thread).
            if stress_participant() == caller { stress_wait_end() }
            return try block(shared: shared, work)
        }
        if stress_participant() == caller { stress_wait_end() }
        Participation.fuzz(.afterRelease)
        return result
    }

    /// ``syncInTrial(flags:file:line:execute:)`` onto ``main`` from a
    /// controlled worker, already blocked in the model until the main thread
    /// has run the block (as a controlled step of its own).
    private func syncToControlledMain<T>(_ controlled: ControlledWorker, caller: UnsafeMutablePointer<UInt64>?,
                                         execute work: () throws -> T) rethrows -> T {
        let scheduler = controlled.scheduler
        // Whatever `work` throws, the worker takes the token back before it
        // goes on: its next point must be a decision in every run.
        let result = try withExtendedLifetime(scheduler) {
            defer { scheduler.resumeAfterMainSync(controlled.worker) }
            return try underlying.sync { () throws -> T in
                if stress_participant() == caller { stress_wait_end() }
                return try MainThreadControl.runBlock(scheduler, syncer: controlled.worker) { try block(shared: false, work) }
            }
        }
        if stress_participant() == caller { stress_wait_end() }
        Participation.fuzz(.afterRelease)
        return result
    }

    /// Submits `work` to run on the queue later, as `DispatchQueue.async`.
    ///
    /// - Parameters:
    ///   - group: A group the work joins until it finishes, or nil.
    ///   - qos: The work's quality of service.
    ///   - flags: `.barrier` for exclusive access on a concurrent queue.
    ///   - work: The work to run on the queue.
    public func async(
        group: DispatchGroup? = nil, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable @convention(block) () -> Void
    ) {
        guard stress_trial_is_running() != 0 else { return underlying.async(group: group, qos: qos, flags: flags, execute: work) }
        let shared = isConcurrent && !flags.contains(.barrier)
        Participation.fuzz(.beforeAcquire)
        // A block for the main thread that takes part in the schedule: a
        // controlled step of the main thread's.
        if isMain, let controlled = Participation.controlled, controlled.scheduler.submitToMain(controlled.worker) {
            submitToControlledMain(controlled.scheduler, group: group, qos: qos, flags: flags, execute: work)
            return
        }
        // A block for any other queue: a queue worker of the schedule runs it.
        if submittedUnderControl(group: group, flags: flags, delayed: false, work, how: "async") { return }
        underlying.async(group: group, qos: qos, flags: flags) { [self] in
            let entry = Participation.enter()
            block(shared: shared, work)
            Participation.leave(entry)
        }
    }

    /// ``async(group:qos:flags:execute:)`` onto ``main`` under control, once
    /// the model counts the block: the main thread runs it as a step of its own.
    private func submitToControlledMain(_ scheduler: ControlledScheduler, group: DispatchGroup?, qos: DispatchQoS,
                                        flags: DispatchWorkItemFlags, execute work: @escaping @Sendable @convention(block) () -> Void) {
        underlying.async(group: group, qos: qos, flags: flags) { [self] in
            let entry = Participation.enter()
            MainThreadControl.runBlock(scheduler, syncer: -1) { block(shared: false, work) }
            Participation.leave(entry)
        }
    }

    /// Submits `work` to run on the queue at `deadline`, as `DispatchQueue.asyncAfter`.
    ///
    /// - Parameters:
    ///   - deadline: When the work may run, at the earliest.
    ///   - qos: The work's quality of service.
    ///   - flags: `.barrier` for exclusive access on a concurrent queue.
    ///   - work: The work to run on the queue.
    public func asyncAfter(
        deadline: DispatchTime, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable @convention(block) () -> Void
    ) {
        guard stress_trial_is_running() != 0 else { return underlying.asyncAfter(deadline: deadline, qos: qos, flags: flags, execute: work) }
        let shared = isConcurrent && !flags.contains(.barrier)
        // For the main thread that takes part in the schedule: on the
        // virtual clock, as on any queue, its deadline passes when the
        // policy picks the main thread for it (the main queue runs its
        // blocks in the order they came).
        // (The point comes before the model counts the block: once counted,
        // the main thread may be picked, and must find it queued.)
        if isMain { Participation.fuzz(.beforeAcquire) }
        if isMain, let controlled = Participation.controlled, controlled.scheduler.submitToMain(controlled.worker) {
            submitToControlledMain(controlled.scheduler, group: nil, qos: qos, flags: flags, execute: work)
            return
        }
        if submittedUnderControl(group: nil, flags: flags, delayed: true, work, how: "asyncAfter") { return }
        underlying.asyncAfter(deadline: deadline, qos: qos, flags: flags) { [self] in
            let entry = Participation.enter()
            block(shared: shared, work)
            Participation.leave(entry)
        }
    }

    /// Under controlled scheduling, hands `work` to the model's book of
    /// queued blocks (see ``submitUnderControl(flags:delayed:_:)``); a
    /// `group` is entered now and left once the block has run, as
    /// `DispatchQueue.async(group:)` does. False when it cannot: the block
    /// escapes control, which the trial's record says (`how` it was
    /// submitted), and the caller submits it to the dispatch queue.
    private func submittedUnderControl(group: DispatchGroup?, flags: DispatchWorkItemFlags, delayed: Bool,
                                       _ work: @escaping @Sendable @convention(block) () -> Void, how: String) -> Bool {
        let refusal: QueueBook.Refusal?
        if let group {
            group.enter()
            refusal = submitUnderControl(flags: flags, delayed: delayed) {
                work()
                group.leave()
            }
            if refusal != nil { group.leave() }
        } else {
            refusal = submitUnderControl(flags: flags, delayed: delayed, work)
        }
        guard let refusal else { return true }
        // Out of queue workers, the scheduler said so in the record.
        if refusal == .notControlled {
            Participation.escaped("a block submitted with \(how) to the queue '\(label)' ran on a dispatch thread the harness does not schedule")
        }
        return false
    }

    /// Under controlled scheduling, hands `work` to the model's book of
    /// queued blocks, where a queue worker of the schedule runs it (see
    /// ``ControlledScheduler/submit(_:queue:concurrent:barrier:delayed:run:)``).
    /// Nil when taken; else why it cannot be (not under control, the main
    /// queue, no queue worker free): the caller submits it to the dispatch queue.
    private func submitUnderControl(flags: DispatchWorkItemFlags, delayed: Bool,
                                    _ work: @escaping @Sendable () -> Void) -> QueueBook.Refusal? {
        guard !isMain, let controlled = Participation.controlled else { return .notControlled }
        let barrier = flags.contains(.barrier)
        let shared = isConcurrent && !barrier
        return controlled.scheduler.submit(controlled.worker, queue: keys[0], concurrent: isConcurrent, barrier: barrier,
                                           delayed: delayed) { [self] in
            // On the queue worker's thread: the model grants the queue (and
            // its targets), then the block runs on the real queue through
            // `sync`, which cannot wait (as a `sync` from a worker), so
            // `getSpecific` and `isCurrent` inside it are the queue's.
            let runner = Participation.controlled
            if let runner {
                for key in keys { runner.acquire(key, shared: shared) }
                runner.scheduler.queueBlockHoldsQueue(runner.worker)
            }
            underlying.sync(flags: barrier ? .barrier : []) { block(shared: shared, work) }
            if let runner { for key in keys.reversed() { runner.release(key) } }
        }
    }

    /// Sets a value for `key` on this queue, as `DispatchQueue.setSpecific`:
    /// database wrappers mark their queue so that a method can tell whether
    /// it already runs on it (and not `sync` onto it again).
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value; nil removes it.
    public func setSpecific<T>(key: DispatchSpecificKey<T>, value: T?) {
        underlying.setSpecific(key: key, value: value)
    }

    /// The value for `key` set on this queue, as `DispatchQueue.getSpecific`.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value, or nil when none was set.
    public func getSpecific<T>(key: DispatchSpecificKey<T>) -> T? {
        underlying.getSpecific(key: key)
    }

    /// The value for `key` on the queue the calling code runs on (following
    /// targets), as `DispatchQueue.getSpecific(key:)`: how code detects that
    /// it is already on a queue it marked.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value, or nil when the current queue has none.
    public static func getSpecific<T>(key: DispatchSpecificKey<T>) -> T? {
        DispatchQueue.getSpecific(key: key)
    }

    /// Whether the calling thread is running a block of this queue now
    /// (inside a trial; outside one, whether it is the main thread for
    /// ``main``, else false: libdispatch cannot say).
    public var isCurrent: Bool {
        if Participation.active { return stress_holds(keys[0]) != 0 || stress_holds(keys[0] | WaitKey.sharedBit) != 0 }
        return isMain && stress_is_main_thread() != 0
    }

    /// A block as it runs: the queue (and its targets) held, the entry and
    /// exit fuzz points around it.
    @inline(__always)
    private func block<T>(shared: Bool, _ work: () throws -> T) rethrows -> T {
        let mode = shared ? WaitKey.sharedBit : 0
        for key in keys { stress_hold(key | mode) }
        Participation.fuzz(.afterAcquire)
        defer {
            Participation.fuzz(.beforeRelease)
            for key in keys.reversed() { stress_unhold(key | mode) }
        }
        return try work()
    }
}
