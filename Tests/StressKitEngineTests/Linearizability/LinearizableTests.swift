import Foundation
import StressKitTestSupport
import StressKitTesting
import Testing

/// A key-value cache's operations, as a test writes them.
enum CacheOp: Sendable, Hashable, CustomStringConvertible {
    case get(String)
    case put(String, Int)

    var description: String {
        switch self {
        case .get(let k): return "get(\(k))"
        case .put(let k, let v): return "put(\(k), \(v))"
        }
    }

    /// Keys "a" and "b", values 1 to 3: small, so that operations collide.
    static let generator: StressTest.Operations<CacheOp> = .generated { random in
        let key = random.next(below: 2) == 0 ? "a" : "b"
        return random.next(below: 2) == 0 ? .get(key) : .put(key, 1 + random.next(below: 3))
    }
}

/// The plain, single-threaded truth.
struct CacheModel: SequentialModel {
    var storage: [String: Int] = [:]

    mutating func apply(_ op: CacheOp) -> Int? {
        switch op {
        case .get(let k): return storage[k]
        case .put(let k, let v):
            storage[k] = v
            return nil
        }
    }

    static func partition(of op: CacheOp) -> AnyHashable? {
        switch op {
        case .get(let k), .put(let k, _): return k
        }
    }
}

/// A cache behind one harness-aware lock: linearizable.
final class LockedCache: @unchecked Sendable {
    // @unchecked: `lock` guards `storage`.
    private let lock = StressLock(name: "cache")
    private var storage: [String: Int] = [:]

    func perform(_ op: CacheOp) -> Int? {
        lock.withLock {
            switch op {
            case .get(let k): return storage[k]
            case .put(let k, let v):
                storage[k] = v
                return nil
            }
        }
    }
}

/// A cache with a one-entry memo in front, filled by gets and never
/// invalidated by puts: a get can return a value already overwritten.
final class MemoCache: @unchecked Sendable {
    // @unchecked: `lock` guards both `storage` and `memo`.
    private let lock = StressLock(name: "cache")
    private var storage: [String: Int] = [:]
    private var memo: (key: String, value: Int?)?

    func perform(_ op: CacheOp) -> Int? {
        lock.withLock {
            switch op {
            case .get(let k):
                if let memo, memo.key == k { return memo.value }
                memo = (k, storage[k])
                return storage[k]
            case .put(let k, let v):
                storage[k] = v
                return nil
            }
        }
    }
}

/// `StressTest.linearizable`: a thread-safe type against its model, free
/// and under controlled scheduling.
@Suite struct LinearizableTests {
    @Test func aLockedCacheIsLinearizable() async throws {
        let report = await StressTest.linearizable(
            model: CacheModel(), make: { LockedCache() }, run: { cache, op in cache.perform(op) },
            operations: CacheOp.generator)
            .threads(3).operationsPerThread(4).ops(600).seed(5)
            .expectSuccess()
        let trial = try #require(report?.trials.first)
        let record = try #require(trial.linearizability)
        #expect(record.verdict == .linearizable)
        #expect(record.histories > 100)
        #expect(record.scenarios >= 1)
    }

    @Test func aLockedCacheIsLinearizableUnderControl() async throws {
        let report = await StressTest.linearizable(
            model: CacheModel(), make: { LockedCache() }, run: { cache, op in cache.perform(op) },
            operations: CacheOp.generator)
            .threads(2).ops(300).schedule(.controlled).seed(2)
            .expectSuccess()
        let trial = try #require(report?.trials.first)
        #expect(trial.schedule?.mode == .controlled)
        #expect(trial.linearizability?.verdict == .linearizable)
    }

    /// A stale memo is a bug no single thread's view shows; the failure
    /// shows the smallest scenario, one column per thread. Under control,
    /// so that the seed finds it every time (in its first rounds).
    @Test func aStaleMemoIsFoundAndShrunk() async throws {
        let test = StressTest.linearizable(
            model: CacheModel(), make: { MemoCache() }, run: { cache, op in cache.perform(op) },
            operations: CacheOp.generator)
            .threads(2).ops(1_500).runsPerScenario(10).schedule(.controlled).maxDecisions(1_000_000).seed(1)
        let report = try await test.run()
        let trial = try #require(report.trials.first)
        #expect(trial.outcome == .violated)
        let record = try #require(trial.linearizability)
        #expect(record.verdict == .violated)
        let history = try #require(record.history)
        #expect(history.contains { $0.unexplained == true })
        let shrink = try #require(record.shrink)
        #expect(shrink.to <= 4, "a stale read needs a get, a put and a get")
        #expect(shrink.complete)
        let failure = try #require(report.failure)
        #expect(failure.description.contains("smallest failing scenario"))
        #expect(failure.description.contains("no sequential order explains"))
    }

    @Test func expectingTheViolationPasses() async {
        await StressTest.linearizable(
            model: CacheModel(), make: { MemoCache() }, run: { cache, op in cache.perform(op) },
            operations: CacheOp.generator)
            .threads(2).ops(300).schedule(.controlled).seed(1)
            .expect(.violated)
            .expectSuccess()
    }

    @Test func anEmptyListOfOperationsIsAnErrorNotATrap() async throws {
        let test = StressTest.linearizable(
            model: CacheModel(), make: { LockedCache() }, run: { cache, op in cache.perform(op) },
            operations: .oneOf([]))
        let error = await #expect(throws: StressTestError.self) { try await test.run() }
        #expect(error?.description.contains("operations: the list of operations is empty") == true)
    }

    /// Each trial in a child process of the test binary: the closures are
    /// registered again there, at the same call.
    @Test func aLockedCacheIsLinearizableInAChildProcess() async throws {
        let report = await StressTest.linearizable(
            model: CacheModel(), make: { LockedCache() }, run: { cache, op in cache.perform(op) },
            operations: CacheOp.generator)
            .threads(2).ops(200).seed(3)
            .isolated()
            .expectSuccess()
        #expect(report?.trials.first?.outcome == .passed)
        #expect(report?.trials.first?.linearizability?.verdict == .linearizable)
    }

    @Test func aSecondThreadCountIsRefused() async throws {
        let test = StressTest.linearizable(
            model: CacheModel(), make: { LockedCache() }, run: { cache, op in cache.perform(op) },
            operations: CacheOp.generator)
            .threads(2, 3)
        await #expect(throws: StressTestError.self) { try await test.run() }
    }
}
