import Synchronization

/// Names of the harness-aware primitives of a trial's code under test, for
/// stall reports: a queue's label, a lock's name where its wrapper was given
/// one, else its kind and address. Registered when a primitive is made (never
/// on a hot path) and dropped when it goes away.
public enum PrimitiveNames {
    private static let names = Mutex<[UInt64: String]>([:])

    /// Names the primitive at `key` (its address) `name`: "the queue 'jobs'".
    public static func register(_ key: UInt64, _ name: String) {
        names.withLock { $0[key] = name }
    }

    /// Forgets the primitive at `key`.
    public static func unregister(_ key: UInt64) {
        _ = names.withLock { $0.removeValue(forKey: key) }
    }

    /// What to call the primitive at `key` in a report.
    public static func describe(_ key: UInt64) -> String {
        if key == WaitKey.mainQueue { return "the main queue" }
        if let r = WaitKey.resource(of: key) { return "resource \(r)" }
        if let r = WaitKey.signalledResource(of: key) { return "a change to resource \(r) (a waitUntil step)" }
        return names.withLock { $0[key] } ?? "the lock at 0x" + String(key, radix: 16)
    }
}
