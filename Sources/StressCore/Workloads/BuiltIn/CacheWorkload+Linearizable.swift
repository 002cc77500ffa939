/// The cache's sequential model: `check: linearizable` on the cache checks
/// that every get's record and every put's new version fit one order of the
/// calls, key by key (the model partitions by key).
extension CacheWorkload: LinearizableWorkload {
    /// An operation on the cache.
    package enum Operation: Sendable, Hashable, CustomStringConvertible {
        /// Reads both fields of a key's record.
        case get(key: Int)
        /// Updates one field of a key's record (its version goes up by one).
        case put(key: Int, field: Int)

        package var description: String {
            switch self {
            case .get(let key): return "get(\(key))"
            case .put(let key, let field): return "put(\(key), field \(field))"
            }
        }

        var key: Int {
            switch self {
            case .get(let key), .put(let key, _): return key
            }
        }
    }

    /// What a get or a put returns.
    package enum Result: Sendable, Hashable, CustomStringConvertible {
        /// The record's two versions, as a get read them.
        case record(Int, Int)
        /// The version a put stored.
        case version(Int)

        package var description: String {
            switch self {
            case .record(let a, let b): return "(v\(a), v\(b))"
            case .version(let v): return "v\(v)"
            }
        }
    }

    /// Each field's version, by key (absent: version 0, as the initial fill).
    package struct Model: SequentialModel {
        var versions: [Int: Int] = [:]

        package mutating func apply(_ operation: Operation) -> Result {
            switch operation {
            case .get(let key):
                return .record(versions[2 * key] ?? 0, versions[2 * key + 1] ?? 0)
            case .put(let key, let field):
                let version = (versions[2 * key + field] ?? 0) + 1
                versions[2 * key + field] = version
                return .version(version)
            }
        }

        /// Keys are independent: each is checked on its own.
        package static func partition(of operation: Operation) -> AnyHashable? { operation.key }

        package var stateDescription: String {
            versions.keys.sorted().map { "key \($0 / 2) field \($0 % 2): v\(versions[$0] ?? 0)" }.joined(separator: ", ")
        }
    }

    package func model() -> Model { Model() }

    /// A get or a put by `read_ratio`, of a key drawn as the workload draws
    /// them, and a field with equal chances.
    package func generateOperation(_ random: inout SplitMix64) -> Operation {
        let key = keyDistribution.sample(&random)
        return Double(random.next() >> 11) / Double(1 << 53) < readRatio ? .get(key: key) : .put(key: key, field: random.next(below: 2))
    }

    /// The key distribution of these parameters.
    private var keyDistribution: KeyDistribution {
        zipfExponent.map { KeyDistribution.zipf(count: keys, exponent: $0) } ?? .uniform(count: keys)
    }

    /// The get on the read side (or from the thread's own copy, for
    /// `thread-cache`); the put in one critical section (the read side for
    /// `write-through-read`) or as a snapshot, a change outside and a write
    /// back (`stale-snapshot`). `r0` is the key, `r1` the field; the result
    /// is left in `r2` and `r3` (a get's versions) or `r2` (a put's).
    package func linearizableForms() -> [LinearizableForm<State, Model>] {
        let variant = self.variant
        let get = Step<State>.read("get") { state, frame in
            let key = frame.r0
            let copy = state.memory(frame.thread, key)
            if variant == .threadCache && copy.pointee.key == key {
                (frame.r2, frame.r3) = (Word.version(copy.pointee.words.0), Word.version(copy.pointee.words.1))
                return .next
            }
            let words = (state.records[2 * key], state.records[2 * key + 1])
            if variant == .threadCache { copy.pointee = Memory(key: key, words: words, ownWrites: 0) }
            (frame.r2, frame.r3) = (Word.version(words.0), Word.version(words.1))
            return .next
        }
        let put: [Step<State>]
        switch variant {
        case .correct, .writeThroughRead, .threadCache:
            put = [Step("put", access: variant == .writeThroughRead ? .read(0) : .write(0)) { state, frame in
                let key = frame.r0, field = frame.r1, index = 2 * key + field
                let version = Word.version(state.records[index]) + 1
                frame.fuzzPoint()
                let word = Word.encode(key: key, field: field, version: version, writer: frame.thread + 1)
                state.records[index] = word
                if variant == .threadCache { state.remember(word, key: key, field: field, thread: frame.thread) }
                frame.r2 = version
                return .next
            }]
        case .staleSnapshot:
            put = [
                .read("snapshot") { state, frame in
                    (frame.r2, frame.r3) = (state.records[2 * frame.r0], state.records[2 * frame.r0 + 1])
                    return .next
                },
                .unguarded("modify-copy") { _, frame in
                    let old = frame.r1 == 0 ? frame.r2 : frame.r3
                    let word = Word.encode(key: frame.r0, field: frame.r1, version: Word.version(old) + 1, writer: frame.thread + 1)
                    if frame.r1 == 0 { frame.r2 = word } else { frame.r3 = word }
                    return .next
                },
                .write("write-back") { state, frame in
                    state.records[2 * frame.r0] = frame.r2
                    state.records[2 * frame.r0 + 1] = frame.r3
                    frame.r2 = Word.version(frame.r1 == 0 ? frame.r2 : frame.r3)
                    return .next
                },
            ]
        }
        return [
            LinearizableForm("get", matches: { if case .get = $0 { return true } else { return false } },
                             load: { operation, frame in frame.r0 = operation.key },
                             steps: [get]) { _, frame in .record(frame.r2, frame.r3) },
            LinearizableForm("put", matches: { if case .put = $0 { return true } else { return false } },
                             load: { operation, frame in
                                 if case .put(let key, let field) = operation { (frame.r0, frame.r1) = (key, field) }
                             },
                             steps: put) { _, frame in .version(frame.r2) },
        ]
    }
}
