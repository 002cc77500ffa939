/// The controlled scheduler's model of what each worker holds: for every
/// resource (a strategy's section, a lock, a mutex, a queue, a semaphore
/// used as a lock) its exclusive owner and depth, or its count of shared
/// holders. The real primitive is taken only once the model says it is free,
/// so it never blocks in the kernel: blocking is decided here, where the
/// scheduler can see it.
///
/// A handful of resources are in use at a time, so a linear table beats a
/// dictionary and allocates only when it grows.
struct ShadowResources {
    private struct Entry {
        var key: UInt64
        /// The exclusive owner, or -1.
        var owner: Int
        /// How many times the owner holds it (re-entry).
        var depth: Int
        /// How many shared holders (readers).
        var readers: Int
    }

    private var entries: [Entry] = []
    /// Semaphores made as locks (a starting value of 1 or more), as the
    /// model sees them: one line for each unit a worker took with `wait()`
    /// and has not given back with `signal()`. They are kept apart from the
    /// exclusive holds above: a semaphore does not block its waiters in the
    /// model by its holders (its count does), and any worker may signal it,
    /// so a holder here is who took it, not who alone may give it back.
    private var semaphoreUnits: [(key: UInt64, worker: Int)] = []

    init() { entries.reserveCapacity(32) }

    /// What asking for a resource comes to.
    enum Grant: Equatable {
        /// Taken (or taken again).
        case granted
        /// Someone else holds it: wait for it to free.
        case busy
        /// The asker already holds it and it does not re-enter: it would wait
        /// for itself for ever.
        case heldBySelf
    }

    /// Asks for `key` for `worker`: shared (a reader's) or exclusive;
    /// `reentrant` when its owner may take it again.
    mutating func take(_ key: UInt64, by worker: Int, shared: Bool, reentrant: Bool) -> Grant {
        guard let i = entries.firstIndex(where: { $0.key == key }) else {
            entries.append(Entry(key: key, owner: shared ? -1 : worker, depth: shared ? 0 : 1, readers: shared ? 1 : 0))
            return .granted
        }
        let entry = entries[i]
        if entry.owner == worker {
            guard reentrant else { return .heldBySelf }
            entries[i].depth += 1
            return .granted
        }
        if entry.owner >= 0 { return .busy }
        if shared {
            entries[i].readers += 1
            return .granted
        }
        if entry.readers > 0 { return .busy }
        entries[i].owner = worker
        entries[i].depth = 1
        return .granted
    }

    /// Gives back one hold of `key` (shared or exclusive); returns whether it
    /// is now free for anyone.
    mutating func give(_ key: UInt64, by worker: Int) -> Bool {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return true }
        if entries[i].owner == worker {
            entries[i].depth -= 1
            if entries[i].depth > 0 { return false }
            entries[i].owner = -1
        } else if entries[i].readers > 0 {
            entries[i].readers -= 1
        }
        if entries[i].owner < 0 && entries[i].readers == 0 {
            entries.remove(at: i)
            return true
        }
        return false
    }

    /// The worker that holds `key` exclusively, if one does.
    func owner(of key: UInt64) -> Int? {
        guard let entry = entries.first(where: { $0.key == key }), entry.owner >= 0 else { return nil }
        return entry.owner
    }

    /// Whether `worker` holds `key` exclusively.
    func owns(_ key: UInt64, _ worker: Int) -> Bool {
        entries.contains { $0.key == key && $0.owner == worker }
    }

    /// `worker` took a unit of the lock-semaphore `key`.
    mutating func takeSemaphoreUnit(_ key: UInt64, by worker: Int) {
        semaphoreUnits.append((key, worker))
    }

    /// `worker` gave back a unit of the lock-semaphore `key` it took.
    mutating func giveSemaphoreUnit(_ key: UInt64, by worker: Int) {
        if let i = semaphoreUnits.lastIndex(where: { $0.key == key && $0.worker == worker }) { semaphoreUnits.remove(at: i) }
    }

    /// The one worker that holds units of the lock-semaphore `key`, or nil
    /// when none does or several do (a wait for it may then be ended by any
    /// of them: no single worker to follow in a cycle).
    func soleSemaphoreHolder(of key: UInt64) -> Int? {
        var holder: Int?
        for unit in semaphoreUnits where unit.key == key {
            if let holder, holder != unit.worker { return nil }
            holder = unit.worker
        }
        return holder
    }
}
