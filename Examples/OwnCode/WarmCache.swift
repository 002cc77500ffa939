import Dispatch
import StressKit

/// A cache that warms itself in the background, written the ordinary way:
/// `warm()` computes its value (slowly) and publishes it unless a value is
/// there already; `override(_:)` sets a value on demand, which must win.
///
/// The bug (`variant: check-then-publish`): `warm()` checks for a value in
/// one critical section and publishes in the next. An override that lands
/// between the two is overwritten by the warmed value, silently. The window
/// is a few instructions at the end of a slow computation, while the
/// override comes at once: free-running, the override is always long done
/// when the check runs, so stress never sees it; one preemption, at the
/// right point, does.
final class WarmCache: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`, which is the point of the class.
    private let lock = StressLock(name: "cache")
    private var value: Int?
    private let checkThenPublish: Bool
    private let workNanoseconds: UInt64

    init(checkThenPublish: Bool, workNanoseconds: UInt64) {
        self.checkThenPublish = checkThenPublish
        self.workNanoseconds = workNanoseconds
    }

    /// Computes the value and publishes it if the cache is still empty.
    func warm() {
        let computed = Self.compute(for: workNanoseconds)
        if checkThenPublish {
            let empty = lock.withLock { value == nil }
            if empty { lock.withLock { value = computed } }
        } else {
            lock.withLock { if value == nil { value = computed } }
        }
    }

    /// Sets the value on demand; it must never be lost.
    func override(_ newValue: Int) {
        lock.withLock { value = newValue }
    }

    /// What the cache holds.
    var current: Int? { lock.withLock { value } }

    /// A slow computation: busy for about `nanoseconds` of wall time, with
    /// no lock or scheduling point inside (as real work has none).
    private static func compute(for nanoseconds: UInt64) -> Int {
        let start = DispatchTime.now().uptimeNanoseconds
        var x = 1
        while DispatchTime.now().uptimeNanoseconds &- start < nanoseconds {
            for _ in 0..<64 { x = x &* 31 &+ 7 }
        }
        return x | 1  // never the override's value, which is even
    }
}
