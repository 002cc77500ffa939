/// `lazy-init`: a shared instance created on first use by whichever thread needs
/// it first (a lazily initialised singleton, a `lazy var` on a shared object),
/// and reset now and then (a new generation) so creation keeps being exercised.
///
/// `get` takes the fast path on the read side (the instance exists: use it), or
/// else the slow path on the write side, where it checks again (someone may have
/// created it meanwhile) and runs the factory. The factory builds the instance
/// (an id and a few words of data derived from it) and publishes it. `reset`
/// starts a new generation with no instance. Invariants:
/// - **factory runs once per generation**;
/// - **one instance per generation**: every caller in a generation gets the
///   identical instance (a thread never gets two different ones in one generation);
/// - **initialized before published**: whoever gets the instance sees its data
///   complete.
///
/// Variant `publish-before-initialize`: the slow path publishes the new instance
/// (sets the flag callers test) in one critical section and writes its data in
/// the next, so a caller in between gets an instance that is not initialised.
package struct LazyInitWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "lazy-init",
        summary: "shared instance created on first use, reset by generation; factory once, one complete instance per generation",
        parameters: [
            .number("reset_ratio", "fraction of operations that reset the instance (start a new generation); the rest get it",
                    default: 0.01, range: 0...1),
            .integer("payload_words", "words of data the factory writes into an instance", default: 4, range: 1...Instance.maxPayload),
            .choice("variant", "correct; or publish-before-initialize (the instance is published before its data is written)",
                    default: "correct", choices: Variant.allCases.map(\.rawValue)),
        ]
    )

    /// The bug a plan selects with `variant`.
    public enum Variant: String, CaseIterable, Sendable {
        case correct
        case publishBeforeInitialize = "publish-before-initialize"
    }

    /// One instance's memory: its id, its generation and its data.
    public struct Instance {
        /// The most data words an instance can carry.
        public static let maxPayload = 12
        var id: Int
        var generation: Int
        var payload: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)

        /// The data word `i` of instance `id` must hold.
        static func expected(_ id: Int, _ i: Int) -> Int {
            Int(Int64(bitPattern: SplitMix64.mix(UInt64(truncatingIfNeeded: id) &+ UInt64(i))))
        }
    }

    /// The shared fields besides the instances.
    struct Shared {
        /// The published instance's id (0: none).
        var published = 0
        var generation = 0
        /// Factory runs in this generation.
        var factoryRuns = 0
        /// Generations that created an instance.
        var created = 0
    }

    /// What one worker last got, and how often it ran the factory.
    struct Caller {
        var generation = -1
        var id = 0
        var factoryRuns = 0
    }

    /// The published instance, the generation counter and the instances' memory.
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test is what keeps this safe; under
        // `unsynchronized` the races are the point and the checks catch them.
        /// Instances live in a small ring indexed by generation, so the memory of
        /// the current generation's instance is never the previous one's.
        static let ringSize = 8
        let instances: CacheLineArray<Instance>
        /// The published instance and the generation, guarded like everything else.
        let shared: UnsafeMutablePointer<Shared>
        let callers: CacheLineArray<Caller>
        let threads: Int
        let payloadWords: Int

        init(threads: Int, payloadWords: Int) {
            instances = CacheLineArray(count: Self.ringSize)
            shared = .allocate(capacity: 1)
            shared.initialize(to: Shared())
            self.threads = threads
            self.payloadWords = payloadWords
            callers = CacheLineArray(count: threads)
            for t in 0..<threads { callers[t].initialize(to: Caller()) }
        }

        deinit {
            instances.deallocate()
            shared.deallocate()
            callers.deallocate()
        }

        @inline(__always)
        func instance(for generation: Int) -> UnsafeMutablePointer<Instance> {
            instances[Int(UInt(bitPattern: generation) % UInt(Self.ringSize))]
        }

        /// Writes instance `id`'s data.
        func initialize(_ instance: UnsafeMutablePointer<Instance>, id: Int, generation: Int) {
            instance.pointee.id = id
            instance.pointee.generation = generation
            withUnsafeMutableBytes(of: &instance.pointee.payload) { raw in
                let words = raw.bindMemory(to: Int.self)
                for i in 0..<payloadWords { words[i] = Instance.expected(id, i) }
            }
        }

        /// Checks what `thread` got from `get` in `generation`: the instance's data
        /// is complete and it is the one the thread got before in this generation.
        func use(_ id: Int, generation: Int, thread: Int) -> String? {
            let instance = self.instance(for: generation)
            let wrong = withUnsafeBytes(of: &instance.pointee.payload) { raw -> Int? in
                let words = raw.bindMemory(to: Int.self)
                return (0..<payloadWords).first { words[$0] != Instance.expected(id, $0) }
            }
            if instance.pointee.id != id || instance.pointee.generation != generation || wrong != nil {
                let found = instance.pointee.id != id || instance.pointee.generation != generation
                    ? "its memory still holds instance #\(instance.pointee.id) of generation \(instance.pointee.generation)"
                    : "its data word \(wrong ?? 0) is not written"
                return "initialized before published: got instance #\(id) of generation \(generation) but \(found)"
            }
            let me = callers[thread]
            if me.pointee.generation == generation && me.pointee.id != id {
                return "one instance per generation: got instance #\(id) after instance #\(me.pointee.id) in generation \(generation)"
            }
            me.pointee.generation = generation
            me.pointee.id = id
            return nil
        }
    }

    let resetRatio: Double
    let payloadWords: Int
    let variant: Variant

    public init(parameters: WorkloadParameters) throws {
        resetRatio = try parameters.number("reset_ratio")
        payloadWords = try parameters.integer("payload_words")
        variant = Variant(rawValue: try parameters.text("variant")) ?? .correct
    }

    public func makeState(threads: Int) -> State { State(threads: threads, payloadWords: payloadWords) }

    public func operations() -> [StressOperation<State>] {
        let get = StressOperation<State>("get", weight: 1 - resetRatio, steps: [
            // A new instance's id, unique without a shared counter: (op number, thread).
            .unguarded("new-id") { state, frame in
                frame.r0 = frame.opNumber &* state.threads &+ frame.thread &+ 1
                return .next
            },
            .read("fast-path") { state, frame in
                let id = state.shared.pointee.published
                guard id != 0 else { return .next }
                return state.use(id, generation: state.shared.pointee.generation, thread: frame.thread).map { .violation($0) } ?? .finish
            },
        ] + slowPath())
        let reset = StressOperation<State>("reset", weight: resetRatio, steps: [
            .write("reset") { state, _ in
                state.shared.pointee.generation &+= 1
                state.shared.pointee.published = 0
                state.shared.pointee.factoryRuns = 0
                return .next
            },
        ])
        return [get, reset]
    }

    /// The slow path: check again under the write side, then create and publish.
    private func slowPath() -> [Step<State>] {
        let initializeFirst = variant == .correct
        let create = Step<State>.write(initializeFirst ? "create" : "create-and-publish") { state, frame in
            if state.shared.pointee.published != 0 {
                // Another caller created it after our fast path looked.
                return state.use(state.shared.pointee.published, generation: state.shared.pointee.generation, thread: frame.thread).map { .violation($0) } ?? .finish
            }
            return Self.runFactory(state, frame, initializeFirst: initializeFirst)
        }
        guard !initializeFirst else { return [create] }
        return [
            create,
            // The data is written in a second critical section, after the instance
            // was published (if it is still the published one: a reset may have
            // come in between).
            .write("initialize") { state, frame in
                guard state.shared.pointee.published == frame.r0 else { return .next }
                state.initialize(state.instance(for: state.shared.pointee.generation), id: frame.r0, generation: state.shared.pointee.generation)
                return .next
            },
        ]
    }

    /// Runs the factory for the current generation: builds instance r0 and
    /// publishes it, with its data written first unless `initializeFirst` is false
    /// (the bug: then the next step writes it).
    private static func runFactory(_ state: State, _ frame: OpFrame, initializeFirst: Bool) -> StepResult {
        let generation = state.shared.pointee.generation, id = frame.r0
        state.shared.pointee.factoryRuns &+= 1
        if state.shared.pointee.factoryRuns == 1 { state.shared.pointee.created &+= 1 }
        state.callers[frame.thread].pointee.factoryRuns &+= 1
        let instance = state.instance(for: generation)
        if initializeFirst { state.initialize(instance, id: id, generation: generation) }
        state.shared.pointee.published = id
        if state.shared.pointee.factoryRuns > 1 {
            return .violation("factory runs once per generation: it ran \(state.shared.pointee.factoryRuns) times in generation \(generation)")
        }
        guard initializeFirst else { return .next }
        return state.use(id, generation: generation, thread: frame.thread).map { .violation($0) } ?? .next
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        var runs = 0
        for t in 0..<state.threads { runs &+= state.callers[t].pointee.factoryRuns }
        guard runs != state.shared.pointee.created else { return [] }
        return ["factory runs once per generation: it ran \(runs) times but only \(state.shared.pointee.created) generations created an instance"]
    }

    public func metrics(_ state: State) -> [String: Double] {
        ["generations": Double(state.shared.pointee.generation &+ 1), "instances_created": Double(state.shared.pointee.created)]
    }
}
