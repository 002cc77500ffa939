import Dispatch

/// A callback API from before Swift concurrency, and the async wrapper a team
/// writes around it with `withCheckedContinuation`. The wrapper is only as
/// good as the callback's contract: "called exactly once". The two classic
/// breaches, each on a rare path:
/// - a retry path that calls the completion a second time: the continuation
///   is resumed twice, which traps ("SWIFT TASK CONTINUATION MISUSE");
/// - an error path that forgets to call it: the continuation is never
///   resumed, and the awaiting task waits for ever.
public final class LegacyFetcher: Sendable {
    /// How the callback breaks its contract on its rare path.
    public enum RarePath: String, Sendable {
        /// It does not: exactly one call, always.
        case none
        /// The retry path calls the completion twice.
        case callsTwice
        /// The error path never calls it.
        case neverCalls
    }

    private let rarePath: RarePath
    private let queue = DispatchQueue(label: "legacy-fetcher.callbacks")

    /// A fetcher whose rare path does `rarePath`.
    public init(rarePath: RarePath) { self.rarePath = rarePath }

    /// Fetches `key` and calls `completion` on the fetcher's queue; `rare`
    /// takes the rare path (a retry, an error).
    public func fetch(_ key: Int, rare: Bool, completion: @escaping @Sendable (Int) -> Void) {
        queue.async { [rarePath] in
            guard rare else { return completion(key * 2) }
            switch rarePath {
            case .none: completion(key * 2)
            case .callsTwice:
                completion(key * 2)
                completion(key * 2)  // the retry's answer, delivered too
            case .neverCalls: break  // the error is logged; the completion is forgotten
            }
        }
    }

    /// The async wrapper.
    public func fetch(_ key: Int, rare: Bool) async -> Int {
        await withCheckedContinuation { continuation in
            fetch(key, rare: rare) { value in continuation.resume(returning: value) }
        }
    }
}
