import StressKit
import Synchronization

/// The workload that tests ``ImageStore`` as it is: every step is
/// `.unguarded`, because the store synchronizes itself; the harness sees
/// inside it through its harness-aware primitives and the fuzz point in each
/// download.
///
/// Invariants: no more downloads run at once than the store has connections
/// (checked inside every download); a cached image is the one its key
/// downloads to; after the run the store's download count equals the
/// downloads the workers saw. Deadlocks (the semaphores' order, the
/// once-token waiting for itself) are the watchdog's to report, with their
/// cycle; a `sync` onto a queue the thread is already on traps with the
/// wrapper's message.
public struct ImageStoreWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "image-store",
        summary: "your own code: target queues, a concurrent cache, semaphores, a Mutex and a once-token (Examples/OwnCode)",
        parameters: [
            .choice("variant", "correct, or the injected bug: " + ImageStore.Bug.allCases.map(\.rawValue).joined(separator: ", "),
                    default: "correct", choices: ["correct"] + ImageStore.Bug.allCases.map(\.rawValue)),
            .integer("keys", "distinct images", default: 96, range: 1...1_000_000),
            .number("maintenance_ratio", "fraction of operations that are maintenance (run by the first two workers; "
                    + "a no-op on the others)", default: 0.3, range: 0...0.5),
        ]
    )

    /// One trial's store, and what the workers saw.
    public final class State: Sendable {
        let store: ImageStore
        /// Downloads each worker made, one cache line each (only its own worker writes it).
        let downloaded: CacheLineArray<Int>
        /// Downloads running right now, across workers.
        let running = Atomic<Int>(0)
        let threads: Int

        init(store: ImageStore, threads: Int) {
            self.store = store
            self.threads = threads
            downloaded = CacheLineArray(count: threads)
        }

        deinit { downloaded.deallocate() }

        var totalDownloaded: Int { (0..<threads).reduce(0) { $0 + downloaded[$1].pointee } }
    }

    /// What key `k` downloads to.
    static func image(of key: Int) -> Int { key &* 31 &+ 7 }

    static let connections = 2

    let bug: ImageStore.Bug?
    let keys: Int
    let maintenanceRatio: Double

    public init(parameters: WorkloadParameters) throws {
        bug = ImageStore.Bug(rawValue: try parameters.text("variant"))
        keys = try parameters.integer("keys")
        maintenanceRatio = try parameters.number("maintenance_ratio")
    }

    public func makeState(threads: Int) -> State {
        State(store: ImageStore(connections: Self.connections, bug: bug), threads: threads)
    }

    public func operations() -> [StressOperation<State>] {
        let keys = self.keys, share = (1 - maintenanceRatio) / 2
        let fetch = StressOperation<State>("fetch", weight: share, steps: [
            .unguarded("fetch") { state, frame in
                let key = frame.random.next(below: keys)
                var crowded = 0, didDownload = false
                let image = state.store.fetch(key) { key in
                    didDownload = true
                    let now = state.running.add(1, ordering: .relaxed).newValue
                    if now > Self.connections { crowded = now }
                    fuzzPoint()  // the download's wait for the network: a point of our own
                    state.running.subtract(1, ordering: .relaxed)
                    return Self.image(of: key)
                }
                if didDownload { state.downloaded[frame.thread].pointee += 1 }
                if crowded > 0 { return .violation("\(crowded) downloads ran at once with \(Self.connections) connections") }
                return image == Self.image(of: key) ? .next : .violation("fetch(\(key)) returned \(image), not \(Self.image(of: key))")
            },
        ])
        let lookup = StressOperation<State>("lookup", weight: share, steps: [
            .unguarded("lookup") { state, frame in
                let key = frame.random.next(below: keys)
                guard let image = state.store.cached(key), image != Self.image(of: key) else { return .next }
                return .violation("the cache holds \(image) for \(key), not \(Self.image(of: key))")
            },
        ])
        // The app's maintenance timer, on the first two workers: worker 0
        // compacts the disk, worker 1 rebuilds its index.
        let maintain = StressOperation<State>("maintain", weight: maintenanceRatio, steps: [
            .unguarded("maintain") { state, frame in
                if frame.thread < 2 { state.store.maintain(rebuild: frame.thread == 1) }
                return .next
            },
        ])
        return maintenanceRatio > 0 ? [fetch, lookup, maintain] : [fetch, lookup]
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        let counted = state.store.downloads, made = state.totalDownloaded
        return counted == made ? [] : ["the store counted \(counted) downloads, but the workers made \(made)"]
    }
}
