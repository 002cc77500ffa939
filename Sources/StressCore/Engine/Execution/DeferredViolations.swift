import Synchronization

/// Violations reported by write blocks that ran asynchronously, after the
/// worker that submitted them had moved on. Only touched when such a block
/// reports a violation, so the lock is off the normal path.
final class DeferredViolations: Sendable {
    private struct Collected {
        var count = 0
        var samples: [ViolationSample] = []
        var firstAt: UInt64?
    }

    private let collected = Mutex(Collected())
    static let sampleLimit = 10

    func record(_ sample: ViolationSample) {
        let now = MonotonicClock.now()
        collected.withLockSeen {
            $0.count += 1
            if $0.firstAt == nil { $0.firstAt = now }
            if $0.samples.count < Self.sampleLimit { $0.samples.append(sample) }
        }
    }

    var report: ViolationReport {
        collected.withLockSeen { ViolationReport(count: $0.count, samples: $0.samples) }
    }

    /// When the first of them was seen (monotonic ns), for time-to-detection.
    var firstAt: UInt64? { collected.withLockSeen { $0.firstAt } }
}
