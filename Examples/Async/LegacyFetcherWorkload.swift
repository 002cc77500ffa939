import StressKit

/// The workload that tests ``LegacyFetcher``'s async wrapper: each operation
/// fetches a key, taking the rare path with a small seeded probability.
public struct LegacyFetcherWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "legacy-fetcher",
        summary: "withCheckedContinuation around a callback API (Examples/Async)",
        parameters: [
            .choice("variant", "correct, resumed-twice (a trap) or never-resumed (a task that waits for ever)",
                    default: "correct", choices: ["correct", "resumed-twice", "never-resumed"]),
            .integer("rare_in", "one fetch in this many takes the rare path", default: 50, range: 1...1_000_000),
        ]
    )

    let rarePath: LegacyFetcher.RarePath
    let rareIn: Int

    public init(parameters: WorkloadParameters) throws {
        switch try parameters.text("variant") {
        case "resumed-twice": rarePath = .callsTwice
        case "never-resumed": rarePath = .neverCalls
        default: rarePath = .none
        }
        rareIn = try parameters.integer("rare_in")
    }

    /// The fetcher under test.
    public final class State: Sendable {
        let fetcher: LegacyFetcher

        init(_ fetcher: LegacyFetcher) { self.fetcher = fetcher }
    }

    public func makeState(threads: Int) -> State { State(LegacyFetcher(rarePath: rarePath)) }

    public func operations() -> [StressOperation<State>] {
        let rareIn = rareIn
        return [
            StressOperation("fetch", weight: 1, steps: [
                .awaiting("fetch") { state, frame in
                    let key = frame.random.next(below: 1_000)
                    let value = await state.fetcher.fetch(key, rare: frame.random.next(below: rareIn) == 0)
                    return value == key * 2 ? .next : .violation("fetched \(value) for key \(key), expected \(key * 2)")
                },
            ]),
        ]
    }
}
