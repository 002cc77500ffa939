import Dispatch
import StressKit

/// A second class written the ordinary way, with the primitives the job
/// board does not use: an image store in the shape the seeds describe.
///
/// - One **global work queue** that every album's own serial queue targets
///   (the "one serial global work queue" design: an album's blocks run on the
///   work queue, one at a time across all albums).
/// - A **concurrent queue** for the cache: reads run together with `sync`,
///   writes are `sync(flags: .barrier)`.
/// - A **counting semaphore** for the connections: at most two downloads at once.
/// - Two **semaphores used as locks**, around the disk and around its index,
///   for the maintenance the app's timer runs on the first two workers.
/// - A **`Mutex`** for the statistics.
/// - A **once-token** for the configuration, built on first use.
///
/// It is tested unchanged except for the type of its primitives (see
/// `Primitives.swift`). ``Bug`` injects one classic mistake per primitive;
/// `nil` is the correct class.
public final class ImageStore: @unchecked Sendable {
    // @unchecked: the class's own queues, semaphores, mutex and once-token
    // keep its state safe, which is what the example tests.

    /// One injected mistake.
    public enum Bug: String, Sendable, CaseIterable {
        /// An album's block records the image in the store-wide list with
        /// `workQueue.sync`: the album's queue targets the work queue, so its
        /// block already runs there (a `sync` onto the queue it is on).
        case syncOnWorkQueue = "sync-on-work-queue"
        /// A barrier write to the cache checks the cache's size through
        /// `count`, which is a `sync` read on the same queue.
        case readInsideBarrier = "read-inside-barrier"
        /// Compacting takes the disk, then the index; rebuilding the index (on
        /// the second maintenance worker) takes the index, then the disk. The
        /// two maintenance workers deadlock while the others go on fetching.
        case semaphoreOrder = "semaphore-order"
        /// Building the configuration logs through `describe`, which asks for
        /// the configuration: the once-token's body waits for itself.
        case onceReentry = "once-reentry"
        /// A download is counted by reading the statistics in one critical
        /// section and writing them back in the next.
        case lostUpdate = "lost-update"
    }

    /// The configuration, built once.
    public struct Configuration: Sendable {
        /// Connections allowed at once.
        public var connections: Int
        /// The cache's size before a write trims it.
        public var cacheLimit: Int
    }

    /// Counts kept under the statistics mutex.
    public struct Statistics: Sendable {
        /// Fetches the cache answered.
        public var hits = 0
        /// Fetches that downloaded.
        public var downloads = 0
    }

    private let bug: Bug?

    private static let workQueue = Queue(label: "image-store.work")
    private let albums: [Queue]
    private var albumImages: [[Int]]  // album a: guarded by albums[a], which runs on workQueue
    private var everyImage = 0  // store-wide: guarded by workQueue

    private let cache = Queue(label: "image-store.cache", attributes: .concurrent)
    private var images: [Int: Int] = [:]  // guarded by `cache`: read shared, written with a barrier

    private let connections: Semaphore
    private let connectionLimit: Int
    private let disk = Semaphore(value: 1, name: "image-store.disk")
    private let index = Semaphore(value: 1, name: "image-store.index")
    private var compactions = 0  // guarded by `disk` and `index` together

    private let statistics = Mutex(Statistics(), name: "image-store.statistics")

    private let configured = Once(name: "image-store.configuration")
    private var built: Configuration?  // written once, by `configured`'s body

    /// A store with `albums` albums and at most `connections` downloads at
    /// once, with `bug` injected.
    public init(albums: Int = 4, connections: Int = 2, bug: Bug? = nil) {
        self.bug = bug
        self.albums = (0..<albums).map { Queue(label: "image-store.album-\($0)", target: Self.workQueue) }
        albumImages = Array(repeating: [], count: albums)
        self.connections = Semaphore(value: connections, name: "image-store.connections")
        connectionLimit = connections
        images.reserveCapacity(256)
    }

    /// The configuration, built on first use.
    public var configuration: Configuration {
        configured.run {
            let made = Configuration(connections: connectionLimit, cacheLimit: 48)
            if bug == .onceReentry { log("configured: \(describe())") }  // describe reads `configuration`
            built = made
        }
        return built!
    }

    /// The image for `key`: from the cache, else downloaded with `download`
    /// (in a connection slot) and stored in its album and the cache.
    public func fetch(_ key: Int, download: (Int) -> Int) -> Int {
        let limit = configuration.cacheLimit
        if let hit = cache.sync(execute: { images[key] }) {
            statistics.withLock { $0.hits += 1 }
            return hit
        }
        connections.wait()
        let image = download(key)
        connections.signal()
        let album = key % albums.count
        albums[album].sync {
            albumImages[album].append(image)
            if albumImages[album].count > 64 { albumImages[album].removeFirst(32) }
            if bug == .syncOnWorkQueue {
                Self.workQueue.sync { everyImage += 1 }  // the album's queue already runs on it
            } else {
                everyImage += 1  // on the work queue already, through the album's target
            }
        }
        cache.sync(flags: .barrier) {
            let size = bug == .readInsideBarrier ? count : images.count  // `count` is a sync read on this queue
            if size >= limit { images.removeAll(keepingCapacity: true) }
            images[key] = image
        }
        if bug == .lostUpdate {
            let seen = statistics.withLock { $0.downloads }
            statistics.withLock { $0.downloads = seen + 1 }
        } else {
            statistics.withLock { $0.downloads += 1 }
        }
        return image
    }

    /// The cached image for `key`, if any.
    public func cached(_ key: Int) -> Int? { cache.sync { images[key] } }

    /// Images in the cache.
    public var count: Int { cache.sync { images.count } }

    /// Maintenance, as the app's timer runs it: compact the disk (`rebuild`
    /// false) or rebuild its index (true). Both need the disk and the index.
    public func maintain(rebuild: Bool) {
        if rebuild && bug == .semaphoreOrder {
            index.wait()
            disk.wait()
        } else {
            disk.wait()
            index.wait()
        }
        compactions += 1
        index.signal()
        disk.signal()
    }

    /// Downloads counted so far.
    public var downloads: Int { statistics.withLock { $0.downloads } }

    private func describe() -> String { "\(configuration.connections) connection(s)" }

    private func log(_ line: String) { _ = line.utf8.count }
}
