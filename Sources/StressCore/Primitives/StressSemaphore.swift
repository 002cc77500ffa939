import CStressSupport
import Dispatch

/// A drop-in for `DispatchSemaphore` that a trial can see. Outside a trial
/// it is the semaphore it wraps plus one thread-local check. Inside one,
/// `wait()` publishes that the thread waits for the semaphore; a semaphore
/// made with a value of 1 or more is a lock, and a thread that got past
/// `wait()` holds it until it signals (a deadlock among such is a `deadlock`
/// with its cycle); one made with 0 is a signal, waited for like a condition.
/// Fuzz points before and after waiting and around signalling.
public final class StressSemaphore: @unchecked Sendable {
    // @unchecked: immutable after init; DispatchSemaphore is thread-safe.

    /// The semaphore underneath.
    public let underlying: DispatchSemaphore
    /// Whether it was made as a lock (an initial value of 1 or more).
    private let isLock: Bool

    /// A semaphore with `value`, as `DispatchSemaphore(value:)`, optionally
    /// named for stall reports ("the semaphore 'disk'"). Unnamed, a report
    /// calls it by its type and where it was made ("the StressSemaphore made
    /// at Store/Disk.swift:14"): `file` and `line` are the caller's, filled
    /// in by the compiler.
    ///
    /// - Parameters:
    ///   - value: The semaphore's starting count.
    ///   - name: How stall reports name it ("the semaphore 'name'"); nil for its type and place.
    ///   - file: The file that makes it (the compiler fills it in).
    ///   - line: The line that makes it (the compiler fills it in).
    public init(value: Int, name: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        underlying = DispatchSemaphore(value: value)
        isLock = value > 0
        if let name {
            PrimitiveNames.register(Participation.key(underlying), "the semaphore '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(underlying), madeAs: "StressSemaphore", file: file, line: line)
        }
    }

    deinit { PrimitiveNames.unregister(Participation.key(underlying)) }

    /// Waits for the semaphore, as `DispatchSemaphore.wait()`.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    @inlinable
    public func wait(file: StaticString = #fileID, line: UInt = #line) {
        guard stress_participant() != nil else { return underlying.wait() }
        waitInTrial(file: file, line: line)
    }

    @usableFromInline
    func waitInTrial(file: StaticString, line: UInt) {
        Participation.locate(file: file, line: line)
        waiting {
            if let controlled = Participation.controlled { return controlledWait(controlled, timed: false) }
            underlying.wait()
            return true
        }
    }

    /// Waits until `timeout`, as `DispatchSemaphore.wait(timeout:)`.
    ///
    /// - Parameters:
    ///   - timeout: The latest time to wait until.
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    /// - Returns: `.success` when signalled, `.timedOut` when `timeout` passed first.
    public func wait(timeout: DispatchTime, file: StaticString = #fileID, line: UInt = #line) -> DispatchTimeoutResult {
        guard Participation.active else { return underlying.wait(timeout: timeout) }
        Participation.locate(file: file, line: line)
        var result = DispatchTimeoutResult.success
        waiting {
            if let controlled = Participation.controlled {
                result = controlledWait(controlled, timed: true) ? .success : .timedOut
            } else {
                result = underlying.wait(timeout: timeout)
            }
            return result == .success
        }
        return result
    }

    /// Signals the semaphore, as `DispatchSemaphore.signal()`.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    /// - Returns: Nonzero when a waiting thread was woken.
    @discardableResult @inlinable
    public func signal(file: StaticString = #fileID, line: UInt = #line) -> Int {
        guard stress_participant() != nil else { return underlying.signal() }
        return signalInTrial(file: file, line: line)
    }

    @usableFromInline
    func signalInTrial(file: StaticString, line: UInt) -> Int {
        Participation.fuzz(.beforeRelease)
        Participation.locate(file: file, line: line)
        let key = Participation.key(underlying)
        if isLock && stress_holds(key) != 0 {
            stress_unhold(key)
            Participation.controlled?.gaveSemaphore(key)
        }
        let woke = underlying.signal()
        Participation.controlled?.signal(key, all: true)
        Participation.fuzz(.afterRelease)
        return woke
    }

    /// Under control: takes a unit if there is one (never blocking), else
    /// waits in the model until a signal, and tries again. A timed wait's
    /// deadline is virtual: it passes when the policy chooses so, or when
    /// nothing else can run. Should
    /// control end meanwhile, the semaphore is waited on for real.
    private func controlledWait(_ controlled: ControlledWorker, timed: Bool) -> Bool {
        let key = Participation.key(underlying)
        while underlying.wait(timeout: .now()) != .success {
            let (resumed, timedOut) = controlled.awaitSignal(key, timed: timed)
            if !resumed {
                underlying.wait()
                return true
            }
            if timedOut { return underlying.wait(timeout: .now()) == .success }
        }
        return true
    }

    private func waiting(_ wait: () -> Bool) {
        let key = Participation.key(underlying)
        Participation.fuzz(.beforeAcquire)
        stress_wait_begin(key, UInt64(isLock ? STRESS_WAIT_SEMAPHORE : STRESS_WAIT_CONDITION))
        let got = wait()
        stress_wait_end()
        if got && isLock {
            stress_hold(key)
            // Under control the model keeps who took it, to follow a cycle
            // through semaphores.
            Participation.controlled?.tookSemaphore(key)
        }
        Participation.fuzz(.afterAcquire)
    }
}
