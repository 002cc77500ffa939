@testable import StressCore
import XCTest

// Small models whose histories the tests check by hand. Each operation's
// result is a plain Int (or Bool) so a history reads like the table it was
// written from.

/// A register: writes return 0, reads return the value (initially 0);
/// compare-and-set returns 1 when it swapped, 0 when not.
struct RegisterModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case read, write(Int), compareAndSet(Int, Int)
    }
    var value = 0
    mutating func apply(_ operation: Operation) -> Int {
        switch operation {
        case .read: return value
        case .write(let new): value = new; return 0
        case .compareAndSet(let expected, let new):
            guard value == expected else { return 0 }
            value = new
            return 1
        }
    }
}

/// A FIFO queue: enqueue returns 0; dequeue returns the head, or -1 when
/// empty.
struct QueueModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case enqueue(Int), dequeue
    }
    var items: [Int] = []
    mutating func apply(_ operation: Operation) -> Int {
        switch operation {
        case .enqueue(let item): items.append(item); return 0
        case .dequeue: return items.isEmpty ? -1 : items.removeFirst()
        }
    }
}

/// A set: insert and remove say whether they changed it, contains whether
/// the element is in it.
struct SetModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case insert(Int), remove(Int), contains(Int)
    }
    var elements: Set<Int> = []
    mutating func apply(_ operation: Operation) -> Bool {
        switch operation {
        case .insert(let element): return elements.insert(element).inserted
        case .remove(let element): return elements.remove(element) != nil
        case .contains(let element): return elements.contains(element)
        }
    }
}

/// A key-value store that partitions by key: put returns the old value
/// (-1: none), get the value (-1: none).
struct KeyValueModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case get(Int), put(Int, Int)
        var key: Int {
            switch self {
            case .get(let key), .put(let key, _): return key
            }
        }
    }
    var storage: [Int: Int] = [:]
    mutating func apply(_ operation: Operation) -> Int {
        switch operation {
        case .get(let key): return storage[key] ?? -1
        case .put(let key, let value): return storage.updateValue(value, forKey: key) ?? -1
        }
    }
    static func partition(of operation: Operation) -> AnyHashable? { operation.key }
}

/// The same store without partitioning: the checker must search it whole.
struct UnpartitionedKeyValueModel: SequentialModel {
    var inner = KeyValueModel()
    mutating func apply(_ operation: KeyValueModel.Operation) -> Int { inner.apply(operation) }
}

/// A counter whose increments return nothing useful (0) and whose reads
/// return the count: concurrent increments commute, so they make as many
/// memo states as subsets, which is what the time-bound test needs.
struct CounterModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case increment, read
    }
    var count = 0
    mutating func apply(_ operation: Operation) -> Int {
        switch operation {
        case .increment: count += 1; return 0
        case .read: return count
        }
    }
}

/// One operation of a hand-written history: `worker`, what it did and
/// returned (nil: pending), and its call and return on the logical clock.
func op<Operation, Result>(
    _ worker: Int, _ operation: Operation, _ result: Result?, _ called: UInt64, _ returned: UInt64 = .max
) -> HistoryOperation<Operation, Result> {
    HistoryOperation(worker: worker, operation: operation, result: result, called: called, returned: result == nil ? .max : returned)
}

/// Checks with a limit no test history comes near.
func check<M: SequentialModel>(
    _ history: [HistoryOperation<M.Operation, M.Result>], _ model: M
) -> LinearizabilityOutcome<M> {
    LinearizabilityChecker.check(history, model: model, timeLimit: .seconds(60))
}

/// Fails unless `order` is a witness for `history` on `model`: each completed
/// operation exactly once, pending ones at most once, no operation placed
/// before one that returned before it was called, and every completed
/// operation's recorded result what the model returns in that order.
func assertWitness<M: SequentialModel>(
    _ order: [Int]?, for history: [HistoryOperation<M.Operation, M.Result>], model: M,
    file: StaticString = #filePath, line: UInt = #line
) {
    guard let order else { return XCTFail("no witness order", file: file, line: line) }
    XCTAssertEqual(Set(order).count, order.count, "an operation twice in \(order)", file: file, line: line)
    let completed = history.indices.filter { history[$0].result != nil }
    XCTAssertTrue(Set(completed).isSubset(of: order), "completed operations missing from \(order)", file: file, line: line)
    for (position, later) in order.enumerated() {
        for earlier in order[..<position] where history[later].result != nil {
            XCTAssertFalse(
                history[later].returned < history[earlier].called,
                "\(later) returned before \(earlier) was called, yet follows it in \(order)", file: file, line: line)
        }
    }
    var state = model
    for index in order {
        let result = state.apply(history[index].operation)
        if let recorded = history[index].result {
            XCTAssertEqual(result, recorded, "operation \(index) in \(order)", file: file, line: line)
        }
    }
}
