import Synchronization

/// The memory orderings the litmus scenarios take as their `ordering`
/// parameter, applied to every atomic access of a role.
package enum LitmusOrdering: String, Sendable, CaseIterable {
    /// `.relaxed` loads and stores: atomic, but no ordering between locations.
    case relaxed
    /// `.acquiring` loads and `.releasing` stores.
    case acquiringReleasing = "acquiring-releasing"
    /// `.sequentiallyConsistent` loads and stores: one total order.
    case sequentiallyConsistent = "sequentially-consistent"

    /// The `ordering` parameter every litmus scenario declares.
    static let parameter = ParameterSpec.choice(
        "ordering", "the memory ordering of every atomic load and store", default: "relaxed",
        choices: allCases.map(\.rawValue))

    /// The ordering the parameters give.
    init(_ parameters: WorkloadParameters) throws {
        let word = try parameters.text("ordering")
        guard let ordering = LitmusOrdering(rawValue: word) else {
            throw WorkloadParameterError(parameter: "ordering", "'\(word)' is not one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = ordering
    }
}

extension Atomic where Value == Int {
    /// A store with `ordering` (the Synchronization API wants a constant
    /// ordering at each call, hence the switch).
    @inline(__always)
    func store(_ value: Int, _ ordering: LitmusOrdering) {
        switch ordering {
        case .relaxed: store(value, ordering: .relaxed)
        case .acquiringReleasing: store(value, ordering: .releasing)
        case .sequentiallyConsistent: store(value, ordering: .sequentiallyConsistent)
        }
    }

    /// A load with `ordering`.
    @inline(__always)
    func load(_ ordering: LitmusOrdering) -> Int {
        switch ordering {
        case .relaxed: return load(ordering: .relaxed)
        case .acquiringReleasing: return load(ordering: .acquiring)
        case .sequentiallyConsistent: return load(ordering: .sequentiallyConsistent)
        }
    }
}

/// Two atomic locations and what each role saw: the state of every
/// two-location litmus test. `@unchecked Sendable`: `r0` and `r1` are plain,
/// each written by one role and read by the arbiter after the round barrier,
/// which orders them.
package final class LitmusState: @unchecked Sendable {
    let x = Atomic<Int>(0), y = Atomic<Int>(0)
    var r0 = 0, r1 = 0
}

/// A two-location litmus test: its state, reset and arbiter (the two results
/// as the outcome) are the same for all; each says its roles and its grades.
protocol LitmusScenario: Scenario where State == LitmusState {
    /// The ordering of every atomic access (the `ordering` parameter).
    var ordering: LitmusOrdering { get }
    init(ordering: LitmusOrdering)
}

extension LitmusScenario {
    public init(parameters: WorkloadParameters) throws {
        self.init(ordering: try LitmusOrdering(parameters))
    }

    public func makeState() -> LitmusState { LitmusState() }

    public func reset(_ s: LitmusState) -> LitmusState {
        s.x.store(0, ordering: .relaxed)
        s.y.store(0, ordering: .relaxed)
        s.r0 = 0
        s.r1 = 0
        return s
    }

    public func arbiter(_ s: LitmusState) -> RoundOutcome { RoundOutcome(s.r0, s.r1) }
}
