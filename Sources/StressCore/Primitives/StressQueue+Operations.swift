import Synchronization

extension StressQueue {
    /// The `OperationQueue` shape a trial can see: blocks added with
    /// ``addOperation(_:)`` run on a ``StressQueue`` underneath, and
    /// ``waitUntilAllOperationsAreFinished()`` is the closed loop's drain.
    ///
    /// ```swift
    /// #if STRESS_TESTS
    /// typealias Operations = StressQueue.Operations
    /// #else
    /// typealias Operations = OperationQueue
    /// #endif
    ///
    /// let saves = Operations()
    /// saves.maxConcurrentOperationCount = 1
    /// saves.addOperation { store.write(record) }
    /// saves.waitUntilAllOperationsAreFinished()
    /// ```
    ///
    /// With `maxConcurrentOperationCount` 1 it is a serial queue; with any
    /// other count a concurrent one (under controlled scheduling two of its
    /// blocks may run at once, whatever the count). The count is read when
    /// the first operation is added; a change after that is ignored. Under
    /// control its blocks are run by the schedule's queue workers, as every
    /// ``StressQueue/async(group:qos:flags:execute:)`` block is, and the wait
    /// drains them.
    public final class Operations: @unchecked Sendable {
        // @unchecked: the settings are guarded by `made`'s lock; the queue,
        // once made, never changes.

        private struct Settings {
            var name: String?
            var maxConcurrentOperationCount = Operations.defaultMaxConcurrentOperationCount
            var queue: StressQueue?
        }

        private let made = Mutex(Settings())

        /// As `OperationQueue.defaultMaxConcurrentOperationCount`: as many
        /// at once as the queue admits.
        public static let defaultMaxConcurrentOperationCount = -1

        /// A new operation queue (concurrent until ``maxConcurrentOperationCount`` says 1).
        public init() {}

        /// The queue's name (its ``StressQueue``'s label; set it before the first operation).
        public var name: String? {
            get { made.withLock { $0.name } }
            set { made.withLock { $0.name = newValue } }
        }

        /// How many operations may run at once: 1 makes it serial. Read when
        /// the first operation is added.
        public var maxConcurrentOperationCount: Int {
            get { made.withLock { $0.maxConcurrentOperationCount } }
            set { made.withLock { $0.maxConcurrentOperationCount = newValue } }
        }

        /// The queue underneath, made at the first operation.
        public var queue: StressQueue {
            made.withLock { settings in
                if let queue = settings.queue { return queue }
                let serial = settings.maxConcurrentOperationCount == 1
                let queue = StressQueue(label: settings.name ?? "operations", attributes: serial ? [] : .concurrent)
                settings.queue = queue
                return queue
            }
        }

        /// Adds an operation that runs `block`, as `OperationQueue.addOperation(_:)`.
        ///
        /// - Parameter block: The operation's work.
        public func addOperation(_ block: @escaping @Sendable () -> Void) {
            queue.async(execute: block)
        }

        /// Adds a block that runs once every operation added before it has
        /// finished, and before any added after it starts, as
        /// `OperationQueue.addBarrierBlock(_:)`.
        ///
        /// - Parameter barrier: The work.
        public func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
            queue.async(flags: .barrier, execute: barrier)
        }

        /// Waits until every operation added so far has finished, as
        /// `OperationQueue.waitUntilAllOperationsAreFinished()`: a barrier
        /// `sync`, which runs once everything submitted before it has.
        public func waitUntilAllOperationsAreFinished() {
            queue.sync(flags: .barrier) {}
        }
    }
}
