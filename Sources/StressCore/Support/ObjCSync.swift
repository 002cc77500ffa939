import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A model of the Objective-C runtime's `objc_sync_enter` / `objc_sync_exit`,
/// the functions `@synchronized(obj)` compiles to, for Linux, where they do not
/// exist. It follows the runtime's design (objc4, `objc-sync.mm`):
///
/// - A process-wide table maps an object's address to a `SyncData` record
///   holding a **recursive** mutex. The table is 64 stripes, picked by a hash of
///   the address, each a spin lock and a linked list of records, each stripe on
///   its own cache line. Records are never freed: one whose `threadCount` (the
///   threads using it) has dropped to 0 is reused for the next object that
///   hashes to its stripe.
/// - Each thread keeps a cache of the records it currently holds with its own
///   lock count for each: a one-entry fast slot (the runtime's two direct TLS
///   keys) and a small list that grows by doubling. Entering or leaving an
///   object this thread already holds touches only the cache; otherwise the
///   stripe's spin lock is taken and its list searched.
/// - Both enter and exit look the object up; enter then locks the record's
///   mutex, exit unlocks it.
///
/// So its cost (two lookups through thread-local storage, a stripe lock on a
/// thread's first entry, a recursive mutex) and its semantics (reentrant on the
/// same thread, no fairness: the mutex is a plain pthread one) are those of the
/// real thing.
enum ObjCSync {
    /// The per-object record (`SyncData`): written once into raw memory on its
    /// own cache line and never moved or freed.
    struct Record: ~Copyable {
        /// The next record in the stripe's list; set before the record is
        /// published, under the stripe lock.
        var next: UnsafeMutablePointer<Record>?
        /// The address it is for. Changed only under the stripe lock, and only
        /// while `threadCount` is 0.
        var object: UInt
        /// How many threads hold or wait for it (not how many times).
        let threadCount: Atomic<Int>
        /// The recursive mutex `@synchronized` blocks enter.
        var mutex: pthread_mutex_t
    }

    /// One stripe of the table (`SyncList`).
    struct Stripe: ~Copyable {
        let lock: Atomic<UInt32>
        var head: UnsafeMutablePointer<Record>?
    }

    /// A record this thread holds and how many times it entered it.
    struct CacheItem {
        var record: UnsafeMutablePointer<Record>
        var lockCount: Int
    }

    /// A thread's cache (the fast slot and `SyncCache`), in malloc'd memory that
    /// a thread-local key owns and frees when the thread ends.
    struct ThreadCache {
        var fast: UnsafeMutablePointer<Record>?
        var fastCount = 0
        var used = 0
        var allocated = 4
        var items = UnsafeMutablePointer<CacheItem>.allocate(capacity: 4)
    }

    static let stripeCount = 64

    /// The table, made on first use and kept for the life of the process.
    private static let stripes: CacheLineArray<Stripe> = {
        let stripes = CacheLineArray<Stripe>(count: stripeCount)
        for i in 0..<stripeCount { stripes[i].initialize(to: Stripe(lock: Atomic(0), head: nil)) }
        return stripes
    }()

    /// The thread-local key of each thread's cache.
    private static let cacheKey: pthread_key_t = {
        var key = pthread_key_t()
        // The destructor's parameter is optional on Linux and not on Darwin;
        // passing it on to a function that takes an optional fits both.
        let rc = pthread_key_create(&key) { freeThreadCache($0) }
        precondition(rc == 0, "pthread_key_create failed: \(rc)")
        return key
    }()

    /// Frees a thread's cache when the thread ends.
    private static func freeThreadCache(_ raw: UnsafeMutableRawPointer?) {
        guard let cache = raw?.assumingMemoryBound(to: ThreadCache.self) else { return }
        cache.pointee.items.deallocate()
        cache.deinitialize(count: 1)
        cache.deallocate()
    }

    /// `objc_sync_enter(object)`: finds (or makes) the object's record and locks
    /// its recursive mutex.
    @inline(__always)
    static func enter(_ object: UInt) {
        let record = lookUp(object, entering: true)
        pthread_mutex_lock(&record.pointee.mutex)
    }

    /// `objc_sync_exit(object)`: finds the object's record in this thread's cache
    /// and unlocks its mutex.
    @inline(__always)
    static func exit(_ object: UInt) {
        let record = lookUp(object, entering: false)
        pthread_mutex_unlock(&record.pointee.mutex)
    }

    /// The runtime's `id2data`: this thread's cache first, then the table.
    private static func lookUp(_ object: UInt, entering: Bool) -> UnsafeMutablePointer<Record> {
        let cache = threadCache()
        if let record = cache.pointee.fast, record.pointee.object == object {
            cache.pointee.fastCount += entering ? 1 : -1
            if cache.pointee.fastCount == 0 {
                cache.pointee.fast = nil
                record.pointee.threadCount.subtract(1, ordering: .releasing)
            }
            return record
        }
        let items = cache.pointee.items
        for i in 0..<cache.pointee.used where items[i].record.pointee.object == object {
            let record = items[i].record
            items[i].lockCount += entering ? 1 : -1
            if items[i].lockCount == 0 {
                cache.pointee.used -= 1
                items[i] = items[cache.pointee.used]
                record.pointee.threadCount.subtract(1, ordering: .releasing)
            }
            return record
        }
        guard entering else {
            // objc returns OBJC_SYNC_NOT_OWNING_THREAD_ERROR; for a harness that
            // is a bug in the strategy, not in the code under test.
            fatalError("objc_sync_exit on an object this thread has not entered")
        }
        let record = findOrMakeRecord(object)
        if cache.pointee.fast == nil {
            cache.pointee.fast = record
            cache.pointee.fastCount = 1
        } else {
            append(CacheItem(record: record, lockCount: 1), to: cache)
        }
        return record
    }

    /// Searches the object's stripe under its spin lock; reuses a record no
    /// thread uses, or adds a new one at the head of the list.
    private static func findOrMakeRecord(_ object: UInt) -> UnsafeMutablePointer<Record> {
        let stripe = stripes[stripeIndex(object)]
        SpinLock.lock(stripe.pointee.lock)
        defer { SpinLock.unlock(stripe.pointee.lock) }
        var unused: UnsafeMutablePointer<Record>?
        var next = stripe.pointee.head
        while let record = next {
            if record.pointee.object == object {
                // Increments happen only under the stripe lock, so a record seen
                // at 0 here cannot be picked up by another thread meanwhile.
                record.pointee.threadCount.wrappingAdd(1, ordering: .acquiringAndReleasing)
                return record
            }
            if unused == nil && record.pointee.threadCount.load(ordering: .acquiring) == 0 { unused = record }
            next = record.pointee.next
        }
        if let record = unused {
            record.pointee.object = object
            record.pointee.threadCount.store(1, ordering: .relaxed)
            return record
        }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: CacheLineArray<Record>.stride, alignment: 128)
        let record = raw.bindMemory(to: Record.self, capacity: 1)
        record.initialize(to: Record(next: stripe.pointee.head, object: object, threadCount: Atomic(1), mutex: pthread_mutex_t()))
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(&record.pointee.mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        stripe.pointee.head = record
        return record
    }

    /// The stripe for an address: objects are at least 16-byte aligned, so the
    /// low 4 bits carry nothing; folding in higher bits spreads neighbours.
    @inline(__always)
    private static func stripeIndex(_ object: UInt) -> Int {
        Int(((object &>> 4) ^ (object &>> 9)) % UInt(stripeCount))
    }

    /// This thread's cache, made on its first `@synchronized`.
    @inline(__always)
    private static func threadCache() -> UnsafeMutablePointer<ThreadCache> {
        if let raw = pthread_getspecific(cacheKey) { return raw.assumingMemoryBound(to: ThreadCache.self) }
        let cache = UnsafeMutablePointer<ThreadCache>.allocate(capacity: 1)
        cache.initialize(to: ThreadCache())
        pthread_setspecific(cacheKey, cache)
        return cache
    }

    /// Adds an item to the cache's list, doubling it when full (only when a
    /// thread holds more distinct objects at once than ever before).
    private static func append(_ item: CacheItem, to cache: UnsafeMutablePointer<ThreadCache>) {
        if cache.pointee.used == cache.pointee.allocated {
            let bigger = UnsafeMutablePointer<CacheItem>.allocate(capacity: cache.pointee.allocated * 2)
            bigger.moveInitialize(from: cache.pointee.items, count: cache.pointee.used)
            cache.pointee.items.deallocate()
            cache.pointee.items = bigger
            cache.pointee.allocated *= 2
        }
        (cache.pointee.items + cache.pointee.used).initialize(to: item)
        cache.pointee.used += 1
    }
}
