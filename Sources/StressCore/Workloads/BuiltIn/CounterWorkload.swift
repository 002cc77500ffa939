import CStressSupport
import Synchronization

/// `counter`: one shared integer that workers increment and read.
///
/// The smallest shared state there is, so it measures a strategy's own cost more
/// than anything else. Invariants: every read sees a value no smaller than the
/// last value the same thread read (a counter never goes back), and at the end
/// the counter equals the number of increments done. The `split-rmw` variant is
/// the classic lost update: it reads the value in one critical section and writes
/// value+1 in another, so two threads can both write the same number. The store
/// sees it where it happens (the counter is no longer what the load read: a
/// `lost update` violation naming the thread and op), and the final count sees
/// the total.
///
/// It has a lock-free form for the `atomic` strategy (an `Atomic<Int>`:
/// `wrappingAdd` to increment, `load` to read; `split-rmw` there is a load and a
/// separate exchange, which loses updates just the same).
///
/// `track_occupancy: true` adds a probe to every critical section: an atomic
/// word counting the readers and writers inside at that moment. It reports the
/// most readers ever inside together (`max_concurrent_readers`) and the most
/// workers of any kind (`max_inside`) as metrics, and a writer that is ever
/// inside together with anyone else as a violation, which is the invariant every
/// lock, queue and reader-writer lock promises. It is off by default because it
/// adds two atomic read-modify-writes on one shared line (and a load of two
/// more) to every measured operation: it changes the figures it would explain.
/// `read_spin` lengthens each read's critical section by that many CPU pause
/// hints, so that readers overlap often enough to be seen.
package struct CounterWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "counter",
        summary: "one shared Int: increments and reads; final count must equal increments done",
        parameters: [
            .number("read_ratio", "fraction of operations that read instead of increment", default: 0, range: 0...1),
            .choice("variant", "correct, or split-rmw: read and write back in two critical sections (lost update)",
                    default: "correct", choices: ["correct", "split-rmw"]),
            .flag("track_occupancy", "count workers inside read and write sections (metrics max_concurrent_readers, max_inside; a writer inside with anyone else is a violation); adds atomics to every operation, and there is then no lock-free form",
                  default: false),
            .integer("read_spin", "CPU pause hints executed inside each read, to lengthen its critical section",
                     default: 0, range: 0...1_000_000),
        ]
    )

    /// The counter, the lock-free counter, the occupancy probe and each reader's
    /// last-seen value, each on its own cache line.
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test is what keeps this safe; under
        // `unsynchronized` the races are the point and the checks catch them.
        private let plain = CacheLineArray<Int>(count: 1)
        private let atomics = CacheLineArray<Atomic<Int>>(count: Cell.allCases.count)
        let lastSeen: CacheLineArray<Int>

        /// The atomic cells, by role.
        enum Cell: Int, CaseIterable {
            /// The counter of the lock-free form.
            case lockFreeValue
            /// Readers inside in the low 32 bits, writers inside above them.
            case occupancy
            /// The most readers seen inside at once.
            case maxReaders
            /// The most workers of any kind seen inside at once.
            case maxInside
        }

        init(threads: Int) {
            lastSeen = CacheLineArray(count: threads)
            for cell in Cell.allCases { atomics[cell.rawValue].initialize(to: Atomic(0)) }
        }

        deinit {
            plain.deallocate()
            atomics.deallocate()
            lastSeen.deallocate()
        }

        /// The counter the locked operations guard.
        var value: UnsafeMutablePointer<Int> { plain[0] }

        /// An atomic cell.
        @inline(__always)
        func cell(_ cell: Cell) -> UnsafeMutablePointer<Atomic<Int>> { atomics[cell.rawValue] }

        /// One writer inside, in the occupancy word.
        static let writerUnit = 1 << 32

        /// Books a worker into the probe; returns what it found wrong, if anything.
        @inline(__always)
        func enter(writer: Bool) -> String? {
            // Relaxed suffices: every enter and exit is a read-modify-write of one
            // word, so they are totally ordered, and a correct lock's acquire and
            // release keep them inside its critical section.
            let before = cell(.occupancy).pointee.wrappingAdd(writer ? Self.writerUnit : 1, ordering: .relaxed).oldValue
            let readers = (before & (Self.writerUnit - 1)) + (writer ? 0 : 1)
            let writers = (before >> 32) + (writer ? 1 : 0)
            raise(.maxReaders, to: readers)
            raise(.maxInside, to: readers + writers)
            if writer && before != 0 {
                return "writer exclusion: a writer entered while \(readers) reader(s) and \(writers - 1) other writer(s) were inside"
            }
            if !writer && writers > 0 { return "writer exclusion: a reader entered while \(writers) writer(s) were inside" }
            return nil
        }

        /// Books a worker out of the probe.
        @inline(__always)
        func exit(writer: Bool) {
            cell(.occupancy).pointee.wrappingSubtract(writer ? Self.writerUnit : 1, ordering: .relaxed)
        }

        /// Raises a maximum; a plain load first, so the shared line is written
        /// only the few times the maximum grows.
        @inline(__always)
        private func raise(_ which: Cell, to value: Int) {
            let maximum = cell(which)
            var current = maximum.pointee.load(ordering: .relaxed)
            while value > current {
                let (done, found) = maximum.pointee.compareExchange(expected: current, desired: value, ordering: .relaxed)
                if done { return }
                current = found
            }
        }
    }

    let readRatio: Double
    let splitReadModifyWrite: Bool
    let trackOccupancy: Bool
    let readSpin: Int

    public init(parameters: WorkloadParameters) throws {
        readRatio = try parameters.number("read_ratio")
        splitReadModifyWrite = try parameters.text("variant") == "split-rmw"
        trackOccupancy = try parameters.flag("track_occupancy")
        readSpin = try parameters.integer("read_spin")
    }

    public func makeState(threads: Int) -> State { State(threads: threads) }

    public func operations() -> [StressOperation<State>] {
        let increment: StressOperation<State>
        if splitReadModifyWrite {
            increment = StressOperation("increment", weight: 1 - readRatio, steps: [
                step("load", writer: false, SplitLoad()),
                step("store", writer: true, SplitStore()),
            ])
        } else {
            increment = StressOperation("increment", weight: 1 - readRatio, steps: [step("add", writer: true, Add())])
        }
        let read = StressOperation<State>("read", weight: readRatio, steps: [step("load", writer: false, Load())])
        return [increment, read]
    }

    /// The same operations on an `Atomic<Int>`, with no critical sections. None
    /// when the occupancy probe is on: it watches critical sections, and here
    /// there are none to watch.
    public func lockFreeOperations() -> [StressOperation<State>]? {
        guard !trackOccupancy else { return nil }
        let increment: StressOperation<State>
        if splitReadModifyWrite {
            increment = StressOperation("increment", weight: 1 - readRatio, steps: [
                .unguarded("load", kernel: AtomicSplitLoad()),
                .unguarded("store", kernel: AtomicSplitStore()),
            ])
        } else {
            increment = StressOperation("increment", weight: 1 - readRatio, steps: [.unguarded("add", kernel: AtomicAdd())])
        }
        let read = StressOperation<State>("read", weight: readRatio, steps: [.unguarded("load", kernel: AtomicLoad(pauses: readSpin))])
        return [increment, read]
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        let expected = totals.count(of: "increment")
        // A trial uses either the locked counter or the lock-free one and never
        // touches the other, which stays 0, so their sum is the one it used.
        let actual = state.value.pointee &+ state.cell(.lockFreeValue).pointee.load(ordering: .relaxed)
        guard actual != expected else { return [] }
        return ["final count \(actual) != \(expected) increments done (\(expected - actual) lost)"]
    }

    /// The count, for a controlled trial's trace.
    public func describe(_ state: State) -> String? { "count \(state.value.pointee)" }

    public func metrics(_ state: State) -> [String: Double] {
        guard trackOccupancy else { return [:] }
        return [
            "max_concurrent_readers": Double(state.cell(.maxReaders).pointee.load(ordering: .relaxed)),
            "max_inside": Double(state.cell(.maxInside).pointee.load(ordering: .relaxed)),
        ]
    }

    /// The `split-rmw` store's check, where the bug happens: the store found
    /// the counter no longer at the value its load read, so another write came
    /// in between and this store (of load + 1) wipes it out.
    ///
    /// Sound under every strategy: the counter changes only by stores, so a
    /// different value means some store landed between this increment's load
    /// and its store, and the increment it made is overwritten. (It can miss a
    /// loss, when stale stores bring the counter back to the loaded value; the
    /// final count still sees that.) Under a lock the load of `found` and the
    /// store are in one critical section; in the lock-free form they are one
    /// atomic exchange, so nothing can slip between them. A correct increment
    /// never reaches this check.
    @inline(__always)
    static func checkNoLostUpdate(loaded: Int, found: Int) -> StepResult {
        guard found != loaded else { return .next }
        return .violation("lost update: the load read \(loaded) but the counter was \(found) at the store (another thread wrote in between); storing \(loaded + 1) overwrote it")
    }

    /// A read's check: the counter never goes back for the thread that reads it.
    @inline(__always)
    static func checkMonotonic(_ seen: Int, _ state: State, _ frame: inout OpFrame) -> StepResult {
        let last = state.lastSeen[frame.thread]
        guard seen >= last.pointee else {
            return .violation("monotonic reads: read \(seen) after \(last.pointee) (the counter went backwards)")
        }
        last.pointee = seen
        return .next
    }

    @inline(__always)
    static func spin(_ pauses: Int) {
        for _ in 0..<pauses { stress_cpu_relax() }
    }

    /// A critical section's step made of `kernel`: the kernel alone when
    /// neither the probe nor the read spin is on (so the default loop is
    /// exactly the plain one), else wrapped in them (``Guarded``).
    private func step<K: StepKernel>(_ name: String, writer: Bool, _ kernel: K) -> Step<State> where K.State == State {
        let access: StepAccess = writer ? .write(0) : .read(0)
        let pauses = writer ? 0 : readSpin
        guard trackOccupancy || pauses > 0 else { return Step(name, access: access, kernel: kernel) }
        return Step(name, access: access, kernel: Guarded(inner: kernel, writer: writer, track: trackOccupancy, pauses: pauses))
    }
}
