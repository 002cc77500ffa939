import StressCore

// The models the checker benchmarks use, written as a user would.

/// A small map, not partitioned (as Lincheck checks a whole object): the
/// cache workload's shape. `put` returns the value it replaced.
struct SmallMapModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case get(Int), put(Int, Int), remove(Int)
    }
    var storage: [Int: Int] = [:]
    mutating func apply(_ operation: Operation) -> Int? {
        switch operation {
        case .get(let key): return storage[key]
        case .put(let key, let value): return storage.updateValue(value, forKey: key)
        case .remove(let key): return storage.removeValue(forKey: key)
        }
    }

    /// A random operation on keys 0..<3 and values 0..<4.
    static func random(_ generator: inout SplitMix64) -> Operation {
        let key = generator.next(below: 3)
        switch generator.next(below: 3) {
        case 0: return .get(key)
        case 1: return .put(key, generator.next(below: 4))
        default: return .remove(key)
        }
    }
}

/// A FIFO queue; dequeue returns nil when empty.
struct QueueBenchModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case enqueue(Int), dequeue
    }
    var items: [Int] = []
    mutating func apply(_ operation: Operation) -> Int? {
        switch operation {
        case .enqueue(let item): items.append(item); return nil
        case .dequeue: return items.isEmpty ? nil : items.removeFirst()
        }
    }

    /// Enqueue (of 0..<4) or dequeue, even odds.
    static func random(_ generator: inout SplitMix64) -> Operation {
        generator.next(below: 2) == 0 ? .enqueue(generator.next(below: 4)) : .dequeue
    }
}

/// A key-value store of strings that partitions by key: Porcupine's test
/// model for its `kv` logs (a missing key reads as ""), and the 10,000-
/// operation benchmark's.
struct AppendKeyValueModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case get(String), put(String, String), append(String, String)
        var key: String {
            switch self {
            case .get(let key), .put(let key, _), .append(let key, _): return key
            }
        }
    }
    /// What an operation returns: `get` the value, the others nothing.
    enum Result: Sendable, Hashable {
        case value(String), done
    }
    var storage: [String: String] = [:]
    mutating func apply(_ operation: Operation) -> Result {
        switch operation {
        case .get(let key): return .value(storage[key, default: ""])
        case .put(let key, let value): storage[key] = value; return .done
        case .append(let key, let value): storage[key, default: ""] += value; return .done
        }
    }
    static func partition(of operation: Operation) -> AnyHashable? { operation.key }
}

/// A register that may hold no value: Porcupine's test model for the etcd
/// logs Jepsen recorded (read, write, compare-and-set).
struct EtcdRegisterModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case read, write(Int), compareAndSet(Int, Int)
    }
    /// A read's value (nil: none yet), a write's acknowledgement, a
    /// compare-and-set's success.
    enum Result: Sendable, Hashable {
        case value(Int?), written, swapped(Bool)
    }
    var value: Int?
    mutating func apply(_ operation: Operation) -> Result {
        switch operation {
        case .read: return .value(value)
        case .write(let new): value = new; return .written
        case .compareAndSet(let expected, let new):
            guard value == expected else { return .swapped(false) }
            value = new
            return .swapped(true)
        }
    }
}
