import Synchronization

/// Records a concurrent history without making the workers wait for one
/// another: each worker writes its calls and returns into a buffer of its own
/// (no lock, no shared line but the clock's), and ``history(parallel:)`` merges
/// the buffers after the workers have stopped, as the metrics are merged.
///
/// The order is a global logical clock: one atomic counter that each worker
/// increments (fetch-add) just before it calls an operation and again just
/// after it returns. What the readings mean: when `a`'s return reading is
/// below `b`'s call reading, `a` had returned before `b` was called, so a
/// linearization must put `a` first; operations whose readings overlap may go
/// in either order. The readings are acquire-release read-modify-writes of one
/// word, so they are totally ordered and that order chains happens-before:
/// everything `a` did is visible to `b`. Each recorded interval is a little
/// wider than the call itself (it includes the fetch-adds), which only ever
/// allows more orders: a correct object never looks wrong because of the
/// clock, and a wrong result that the wider interval explains is a race the
/// clock could not see, not a false alarm.
package final class HistoryRecorder<Result: Sendable>: @unchecked Sendable {
    // @unchecked: each worker writes only its own buffer (`entries + worker *
    // stride`), and the buffers are read only after the workers have met at
    // the round's barrier; the clock is an atomic.

    /// One operation as its worker saw it: its place in the worker's list,
    /// the clock at the call and at the return, and the result.
    package struct Entry {
        /// The clock's reading at the call (0: not called yet).
        var called: UInt64
        /// The clock's reading at the return (`UInt64.max`: still pending).
        var returned: UInt64
        /// What it returned; nil while pending.
        var result: Result?
    }

    /// The global logical clock. Starts at 1 so that 0 means "not called".
    private let clock = Atomic<UInt64>(1)
    private let entries: UnsafeMutablePointer<Entry>
    /// Entries per worker, rounded up so that two workers never share a
    /// cache line through their buffers.
    private let stride: Int
    /// How many workers, and how many operations each may record.
    package let workers: Int
    package let capacity: Int

    /// A recorder for `workers` workers of at most `capacity` operations each.
    package init(workers: Int, capacity: Int) {
        self.workers = workers
        self.capacity = capacity
        let perLine = max(1, 128 / max(1, MemoryLayout<Entry>.stride))
        stride = (capacity + perLine - 1) / perLine * perLine + perLine
        entries = .allocate(capacity: stride * workers)
        entries.initialize(repeating: Entry(called: 0, returned: .max, result: nil), count: stride * workers)
    }

    deinit {
        entries.deinitialize(count: stride * workers)
        entries.deallocate()
    }

    /// Reads the clock for the call of `worker`'s operation number `index`,
    /// just before the worker calls it.
    @inline(__always)
    package func call(worker: Int, index: Int) {
        entries[worker * stride + index].called = clock.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
    }

    /// Reads the clock for the return of `worker`'s operation number
    /// `index`, just after it returned `result`.
    @inline(__always)
    package func complete(worker: Int, index: Int, result: Result) {
        let entry = entries + worker * stride + index
        entry.pointee.returned = clock.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        entry.pointee.result = result
    }

    /// The clock's next reading, for a sequential part run outside the
    /// workers (one reading per call or return there too).
    package func tick() -> UInt64 { clock.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue }

    /// The entry `worker` recorded for its operation number `index`.
    package func entry(worker: Int, index: Int) -> Entry { entries[worker * stride + index] }

    /// Forgets every entry, for the next round on this recorder (called
    /// while no worker records).
    package func reset() {
        for i in 0..<(stride * workers) { entries[i] = Entry(called: 0, returned: .max, result: nil) }
    }

    /// The history of the parallel part: `parallel[w][i]` is worker `w`'s
    /// operation number `i`. An operation never called is left out; one
    /// called and never returned is pending (its result nil). Call after the
    /// workers have stopped.
    package func history<Operation: Sendable>(parallel: [[Operation]]) -> [HistoryOperation<Operation, Result>] {
        var history: [HistoryOperation<Operation, Result>] = []
        history.reserveCapacity(parallel.reduce(0) { $0 + $1.count })
        for (worker, operations) in parallel.enumerated() where worker < workers {
            for (index, operation) in operations.enumerated() where index < capacity {
                let entry = entries[worker * stride + index]
                guard entry.called != 0 else { continue }
                history.append(HistoryOperation(worker: worker, operation: operation, result: entry.result,
                                                called: entry.called, returned: entry.result == nil ? .max : entry.returned))
            }
        }
        return history
    }
}
