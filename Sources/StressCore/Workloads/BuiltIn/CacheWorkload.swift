/// `cache`: a key-value store under a read-heavy mix, keys drawn uniformly or
/// with a Zipf skew. The case where reader-writer strategies should win.
///
/// Each key holds a record of two independent fields (think a contact's name and
/// e-mail). A `put` updates one field; a `get` reads the whole record. Every
/// stored field is one word that encodes a per-field version (one more than the
/// version it replaced), the writer, and a checksum over key, field, version and
/// writer. Invariants:
/// - **value integrity**: every read returns a word some write stored for that
///   key and field (the checksum matches);
/// - **read-your-writes** (and monotonic reads): a thread never reads a version
///   older than one it wrote, or one it read before;
/// - **no lost update**: no two writes store the same version of a field, and at
///   the end the versions add up to the number of field writes done.
///
/// Variants (bugs a plan selects with `variant`):
/// - `stale-snapshot`: a `put` copies the whole record in one critical section,
///   changes its field outside any, and writes the whole record back in another,
///   so a concurrent edit to the other field is lost (the pattern the YapDatabase
///   thread-safety guide warns about);
/// - `write-through-read`: a `put` runs on the read side (a reader-writer queue's
///   plain `sync`, a read lock): fine for strategies where readers are exclusive
///   anyway, lost updates where readers share;
/// - `thread-cache`: a `get` answers from what its own thread last read or
///   wrote of the key (a per-thread cache nobody invalidates), so it can
///   return a value another thread has already overwritten. No invariant
///   here catches it (a thread never sees its own values go back), but
///   linearizability does (`check: linearizable`).
package struct CacheWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "cache",
        summary: "key-value store, read-heavy, uniform or Zipf keys; reads see stored values and a thread's own writes",
        parameters: [
            .integer("keys", "size of the key space", default: 1_024, range: 1...1_000_000),
            .number("read_ratio", "fraction of operations that read a record (the rest update one field)", default: 0.9, range: 0...1),
            .choice("distribution", "how keys are drawn: uniform, or zipf (key k with probability ∝ 1/(k+1)^zipf_exponent)",
                    default: "zipf", choices: ["uniform", "zipf"]),
            .number("zipf_exponent", "skew of the zipf distribution (0 is uniform; 0.99 is YCSB's default)", default: 0.99, range: 0...10),
            .choice("variant", """
                correct; or a bug: stale-snapshot (copy the record, change a field outside the critical section, \
                write the whole record back), write-through-read (updates take the read side), \
                thread-cache (reads answer from the thread's own last copy of the record)
                """,
                    default: "correct", choices: Variant.allCases.map(\.rawValue)),
        ]
    )

    /// The bug a plan selects with `variant`.
    public enum Variant: String, CaseIterable, Sendable {
        case correct
        case staleSnapshot = "stale-snapshot"
        case writeThroughRead = "write-through-read"
        case threadCache = "thread-cache"
    }

    /// What one thread last wrote or read of one key: the two field words, and
    /// which of them it wrote itself (bit 0 and bit 1).
    struct Memory {
        var key: Int
        var words: (Int, Int)
        var ownWrites: Int

        subscript(field: Int) -> Int {
            get { field == 0 ? words.0 : words.1 }
            set { if field == 0 { words.0 = newValue } else { words.1 = newValue } }
        }
    }

    /// The table, the key distribution, and each thread's memory of what it saw.
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test is what keeps the table safe; under
        // `unsynchronized` the races are the point and the checks catch them. The
        // per-thread parts are only touched by their own worker's steps.
        /// Two words per key: `records[2k + field]`.
        let records: UnsafeMutablePointer<Int>
        let keys: Int
        let distribution: KeyDistribution
        /// Per thread, a direct-mapped table of the keys it touched last (a bounded
        /// memory: read-your-writes is checked for the keys still in it).
        let memory: UnsafeMutablePointer<Memory>
        let memorySlots: Int
        let memoryStride: Int
        /// Field writes each worker did.
        let writes: CacheLineArray<Int>
        let threads: Int

        init(keys: Int, distribution: KeyDistribution, threads: Int) {
            self.keys = keys
            self.distribution = distribution
            self.threads = threads
            records = .allocate(capacity: 2 * keys)
            for k in 0..<keys {
                records[2 * k] = Word.encode(key: k, field: 0, version: 0, writer: 0)
                records[2 * k + 1] = Word.encode(key: k, field: 1, version: 0, writer: 0)
            }
            var slots = 1
            while slots < min(keys, 1_024) { slots <<= 1 }
            memorySlots = slots
            // Pad each thread's table to whole cache lines so threads never share one.
            let perLine = 128 / MemoryLayout<Memory>.stride
            memoryStride = (slots + perLine - 1) / perLine * perLine
            memory = .allocate(capacity: memoryStride * threads)
            memory.initialize(repeating: Memory(key: -1, words: (0, 0), ownWrites: 0), count: memoryStride * threads)
            writes = CacheLineArray(count: threads)
        }

        deinit {
            records.deallocate()
            memory.deallocate()
            writes.deallocate()
        }

        /// Thread `thread`'s memory slot for `key`.
        @inline(__always)
        func memory(_ thread: Int, _ key: Int) -> UnsafeMutablePointer<Memory> {
            memory + thread * memoryStride + (key & (memorySlots - 1))
        }

        /// Checks a word read from `key`'s `field` by `thread` against what the
        /// thread knows, and remembers it. Returns the broken invariant, if any.
        func observe(_ word: Int, key: Int, field: Int, thread: Int) -> String? {
            guard Word.isValid(word, key: key, field: field) else {
                return "value integrity: key \(key) field \(field) holds a word no write stored for it (\(Word.describe(word)))"
            }
            let slot = memory(thread, key)
            guard slot.pointee.key == key else {
                slot.pointee = Memory(key: key, words: (records[2 * key], records[2 * key + 1]), ownWrites: 0)
                slot.pointee[field] = word
                return nil
            }
            let known = slot.pointee[field]
            let own = slot.pointee.ownWrites & (1 << field) != 0
            if Word.version(word) < Word.version(known) {
                let rule = own ? "read-your-writes: this thread wrote" : "monotonic reads: this thread had read"
                return "\(rule) \(Word.describe(known)) of key \(key) field \(field), then read the older \(Word.describe(word))"
            }
            if Word.version(word) == Word.version(known) && word != known {
                return "no lost update: key \(key) field \(field) \(Word.describe(known)) was overwritten by another write of the same version (\(Word.describe(word)))"
            }
            if word != known {
                slot.pointee[field] = word
                slot.pointee.ownWrites &= ~(1 << field)
            }
            return nil
        }

        /// Records that `thread` stored `word` in `key`'s `field`.
        func remember(_ word: Int, key: Int, field: Int, thread: Int) {
            let slot = memory(thread, key)
            if slot.pointee.key != key {
                slot.pointee = Memory(key: key, words: (records[2 * key], records[2 * key + 1]), ownWrites: 0)
            }
            slot.pointee[field] = word
            slot.pointee.ownWrites |= 1 << field
            writes[thread].pointee &+= 1
        }
    }

    /// The encoding of one stored field: version (35 bits), writer (12 bits,
    /// thread + 1; 0 for the initial fill) and a 16-bit checksum over key, field,
    /// version and writer.
    enum Word {
        static func encode(key: Int, field: Int, version: Int, writer: Int) -> Int {
            let v = UInt64(truncatingIfNeeded: version) & 0x7_FFFF_FFFF
            let w = UInt64(truncatingIfNeeded: writer) & 0xFFF
            return Int(Int64(bitPattern: v << 28 | w << 16 | checksum(key, field, v, w)))
        }

        @inline(__always)
        static func checksum(_ key: Int, _ field: Int, _ version: UInt64, _ writer: UInt64) -> UInt64 {
            let place = UInt64(truncatingIfNeeded: key) << 1 | UInt64(field & 1)
            return SplitMix64.mix(place ^ SplitMix64.mix(version << 12 | writer)) & 0xFFFF
        }

        @inline(__always)
        static func version(_ word: Int) -> Int { Int(UInt64(bitPattern: Int64(word)) >> 28) }

        @inline(__always)
        static func writer(_ word: Int) -> Int { Int(UInt64(bitPattern: Int64(word)) >> 16 & 0xFFF) }

        @inline(__always)
        static func isValid(_ word: Int, key: Int, field: Int) -> Bool {
            let bits = UInt64(bitPattern: Int64(word))
            return bits & 0xFFFF == checksum(key, field, bits >> 28, bits >> 16 & 0xFFF)
        }

        static func describe(_ word: Int) -> String {
            let w = writer(word)
            return "version \(version(word)) by " + (w == 0 ? "the initial fill" : "thread \(w - 1)")
        }
    }

    let keys: Int
    let readRatio: Double
    let zipfExponent: Double?
    let variant: Variant

    public init(parameters: WorkloadParameters) throws {
        keys = try parameters.integer("keys")
        readRatio = try parameters.number("read_ratio")
        zipfExponent = try parameters.text("distribution") == "zipf" ? parameters.number("zipf_exponent") : nil
        variant = Variant(rawValue: try parameters.text("variant")) ?? .correct
    }

    public func makeState(threads: Int) -> State {
        let distribution = zipfExponent.map { KeyDistribution.zipf(count: keys, exponent: $0) } ?? .uniform(count: keys)
        return State(keys: keys, distribution: distribution, threads: threads)
    }

    public func operations() -> [StressOperation<State>] {
        let choose = Step<State>.unguarded("choose") { state, frame in
            frame.r0 = state.distribution.sample(&frame.random)
            frame.r1 = Int(frame.random.next() & 1)
            return .next
        }
        let get = StressOperation<State>("get", weight: readRatio, steps: [
            choose,
            .read("get") { [variant] state, frame in
                let key = frame.r0
                // thread-cache: the thread's own copy of the record, when it
                // has one, is the answer (it is the thread's latest, so no
                // check here sees it go back).
                if variant == .threadCache, state.memory(frame.thread, key).pointee.key == key { return .next }
                for field in 0..<2 {
                    if let broken = state.observe(state.records[2 * key + field], key: key, field: field, thread: frame.thread) {
                        return .violation(broken)
                    }
                }
                return .next
            },
        ])
        return [get, StressOperation("put", weight: 1 - readRatio, steps: [choose] + putSteps())]
    }

    private func putSteps() -> [Step<State>] {
        switch variant {
        case .correct, .writeThroughRead, .threadCache:
            // write-through-read: the same update, on the read side.
            let access: Step<State>.Access = variant == .writeThroughRead ? .read(0) : .write(0)
            return [Step("put", access: access) { state, frame in
                let key = frame.r0, field = frame.r1, index = 2 * key + field
                let old = state.records[index]
                if let broken = state.observe(old, key: key, field: field, thread: frame.thread) { return .violation(broken) }
                // Between the read and the write of the update: where another
                // writer on the read side (write-through-read) slips in. On one
                // CPU the OS rarely preempts inside so short a window; a fuzzer
                // yielding here makes it happen.
                frame.fuzzPoint()
                let word = Word.encode(key: key, field: field, version: Word.version(old) + 1, writer: frame.thread + 1)
                state.records[index] = word
                state.remember(word, key: key, field: field, thread: frame.thread)
                return .next
            }]
        case .staleSnapshot:
            return [
                .read("snapshot") { state, frame in
                    let key = frame.r0
                    frame.r2 = state.records[2 * key]
                    frame.r3 = state.records[2 * key + 1]
                    if let broken = state.observe(frame.r2, key: key, field: 0, thread: frame.thread)
                        ?? state.observe(frame.r3, key: key, field: 1, thread: frame.thread) {
                        return .violation(broken)
                    }
                    return .next
                },
                // The copy is changed outside any critical section ...
                .unguarded("modify-copy") { _, frame in
                    let key = frame.r0, field = frame.r1
                    let old = field == 0 ? frame.r2 : frame.r3
                    let word = Word.encode(key: key, field: field, version: Word.version(old) + 1, writer: frame.thread + 1)
                    if field == 0 { frame.r2 = word } else { frame.r3 = word }
                    return .next
                },
                // ... and the whole record is written back, the other field included.
                .write("write-back") { state, frame in
                    let key = frame.r0, field = frame.r1
                    state.records[2 * key] = frame.r2
                    state.records[2 * key + 1] = frame.r3
                    state.remember(field == 0 ? frame.r2 : frame.r3, key: key, field: field, thread: frame.thread)
                    return .next
                },
            ]
        }
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        var broken: [String] = []
        var versions = 0
        for key in 0..<state.keys {
            for field in 0..<2 {
                let word = state.records[2 * key + field]
                versions &+= Word.version(word)
                if !Word.isValid(word, key: key, field: field), broken.isEmpty {
                    broken.append("value integrity: after the run key \(key) field \(field) holds a word no write stored for it")
                }
            }
        }
        var writes = 0
        for t in 0..<state.threads { writes &+= state.writes[t].pointee }
        if versions != writes {
            broken.append("no lost update: after the run the fields' versions add up to \(versions) but \(writes) field writes were done (\(writes - versions) lost)")
        }
        return broken
    }
}
