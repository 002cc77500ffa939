/// The queue's sequential model: `check: linearizable` on the queue checks
/// that what every put and take returned fits one order of the calls on a
/// bounded FIFO queue.
extension QueueWorkload: LinearizableWorkload {
    /// An operation on the queue.
    package enum Operation: Sendable, Hashable, CustomStringConvertible {
        /// Puts an item, unless the queue is full.
        case put(Int)
        /// Takes the oldest item, unless the queue is empty.
        case take

        package var description: String {
            switch self {
            case .put(let item): return "put(\(item))"
            case .take: return "take"
            }
        }
    }

    /// What a put or a take returns.
    package enum Result: Sendable, Hashable, CustomStringConvertible {
        /// The put stored its item.
        case stored
        /// The put found the queue full.
        case full
        /// The take took this item.
        case item(Int)
        /// The take found the queue empty.
        case empty

        package var description: String {
            switch self {
            case .stored: return "ok"
            case .full: return "full"
            case .item(let item): return "\(item)"
            case .empty: return "empty"
            }
        }
    }

    /// A bounded FIFO queue.
    package struct Model: SequentialModel {
        var items: [Int] = []
        var capacity: Int

        package mutating func apply(_ operation: Operation) -> Result {
            switch operation {
            case .put(let item):
                guard items.count < capacity else { return .full }
                items.append(item)
                return .stored
            case .take:
                return items.isEmpty ? .empty : .item(items.removeFirst())
            }
        }

        package var stateDescription: String { "[" + items.map(String.init).joined(separator: ", ") + "]" }
    }

    package func model() -> Model { Model(capacity: capacity) }

    /// A put of an item from 1 to 999 (mostly different items, so that a
    /// result says which put it came from), or a take, by `produce_ratio`.
    package func generateOperation(_ random: inout SplitMix64) -> Operation {
        Double(random.next() >> 11) / Double(1 << 53) < produceRatio ? .put(1 + random.next(below: 999)) : .take
    }

    /// The put in one critical section; the take in one, or in two for
    /// `split-take`. `r1` says what happened (1 stored or took, 0 full or
    /// empty), `r2` the item.
    package func linearizableForms() -> [LinearizableForm<State, Model>] {
        let put = Step<State>.write("put") { state, frame in
            let count = state.counters.pointee.tail &- state.counters.pointee.head
            guard count < state.capacity else { return .finish }
            state.ring[state.index(state.counters.pointee.tail)] = frame.r2
            state.counters.pointee.tail &+= 1
            frame.r1 = 1
            return .next
        }
        let take: [Step<State>]
        if splitTake {
            take = [
                .read("peek") { state, frame in
                    guard state.counters.pointee.tail &- state.counters.pointee.head > 0 else { return .finish }
                    frame.r2 = state.ring[state.index(state.counters.pointee.head)]
                    return .next
                },
                .write("advance") { state, frame in
                    state.counters.pointee.head &+= 1
                    frame.r1 = 1
                    return .next
                },
            ]
        } else {
            take = [.write("take") { state, frame in
                guard state.counters.pointee.tail &- state.counters.pointee.head > 0 else { return .finish }
                frame.r2 = state.ring[state.index(state.counters.pointee.head)]
                frame.fuzzPoint()
                state.counters.pointee.head &+= 1
                frame.r1 = 1
                return .next
            }]
        }
        return [
            LinearizableForm("put", matches: { if case .put = $0 { return true } else { return false } },
                             load: { operation, frame in if case .put(let item) = operation { frame.r2 = item } },
                             steps: [put]) { _, frame in frame.r1 == 1 ? .stored : .full },
            LinearizableForm("take", matches: { $0 == .take }, steps: take) { _, frame in frame.r1 == 1 ? .item(frame.r2) : .empty },
        ]
    }
}
