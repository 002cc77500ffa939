/// `counter`: one shared integer that workers increment and read.
///
/// The smallest shared state there is, so it measures a strategy's own cost more
/// than anything else. Invariants: every read sees a value no smaller than the
/// last value the same thread read (a counter never goes back), and at the end
/// the counter equals the number of increments done. The `split-rmw` variant is
/// the classic lost update: it reads the value in one critical section and writes
/// value+1 in another, so two threads can both write the same number.
public struct CounterWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "counter",
        summary: "one shared Int: increments and reads; final count must equal increments done",
        parameters: [
            .number("read_ratio", "fraction of operations that read instead of increment", default: 0, range: 0...1),
            .choice("variant", "correct, or split-rmw: read and write back in two critical sections (lost update)",
                    default: "correct", choices: ["correct", "split-rmw"]),
        ]
    )

    /// The counter and each reader's last-seen value (on its own cache line).
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test is what keeps this safe; under
        // `unsynchronized` the races are the point and the checks catch them.
        let value = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        let lastSeen: CacheLineArray<Int>

        init(threads: Int) {
            value.initialize(to: 0)
            lastSeen = CacheLineArray(count: threads)
        }

        deinit {
            value.deallocate()
            lastSeen.deallocate()
        }
    }

    let readRatio: Double
    let splitReadModifyWrite: Bool

    public init(parameters: WorkloadParameters) throws {
        readRatio = try parameters.number("read_ratio")
        splitReadModifyWrite = try parameters.text("variant") == "split-rmw"
    }

    public func makeState(threads: Int) -> State { State(threads: threads) }

    public func operations() -> [Operation<State>] {
        let increment: Operation<State>
        if splitReadModifyWrite {
            increment = Operation("increment", weight: 1 - readRatio, steps: [
                .read("load") { state, frame in
                    frame.r0 = state.value.pointee
                    return .next
                },
                .write("store") { state, frame in
                    state.value.pointee = frame.r0 + 1
                    return .next
                },
            ])
        } else {
            increment = Operation("increment", weight: 1 - readRatio, steps: [
                .write("add") { state, _ in
                    state.value.pointee += 1
                    return .next
                },
            ])
        }
        let read = Operation<State>("read", weight: readRatio, steps: [
            .read("load") { state, frame in
                let seen = state.value.pointee
                let last = state.lastSeen[frame.thread]
                guard seen >= last.pointee else {
                    return .violation("counter went backwards: read \(seen) after \(last.pointee)")
                }
                last.pointee = seen
                return .next
            },
        ])
        return [increment, read]
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        let expected = totals.count(of: "increment")
        let actual = state.value.pointee
        guard actual != expected else { return [] }
        return ["final count \(actual) != \(expected) increments done (\(expected - actual) lost)"]
    }
}
