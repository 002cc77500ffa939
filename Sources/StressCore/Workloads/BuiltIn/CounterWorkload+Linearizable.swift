/// The counter's sequential model: `check: linearizable` on the counter
/// checks that every increment's new value and every read fit one order of
/// the calls.
extension CounterWorkload: LinearizableWorkload {
    /// An operation on the counter.
    package enum Operation: String, Sendable, Hashable, CustomStringConvertible {
        /// Adds one and returns the new value.
        case increment
        /// Returns the value.
        case read

        package var description: String { rawValue }
    }

    /// One integer.
    package struct Model: SequentialModel {
        var value = 0

        package mutating func apply(_ operation: Operation) -> Int {
            if operation == .increment { value += 1 }
            return value
        }

        package var stateDescription: String { "value \(value)" }
    }

    package func model() -> Model { Model() }

    package func generateOperation(_ random: inout SplitMix64) -> Operation {
        Double(random.next() >> 11) / Double(1 << 53) < readRatio ? .read : .increment
    }

    /// The increment in one critical section, or in two for `split-rmw`
    /// (load on the read side, store of load + 1 on the write side: the
    /// lost update); the read on the read side. The result is left in `r1`.
    package func linearizableForms() -> [LinearizableForm<State, Model>] {
        let incrementSteps: [Step<State>]
        if splitReadModifyWrite {
            incrementSteps = [
                Step("load", access: .read(0)) { state, frame in
                    frame.r2 = state.value.pointee
                    return .next
                },
                Step("store", access: .write(0)) { state, frame in
                    frame.r1 = frame.r2 + 1
                    state.value.pointee = frame.r1
                    return .next
                },
            ]
        } else {
            incrementSteps = [Step("add", access: .write(0)) { state, frame in
                let value = state.value.pointee + 1
                // Between the read and the write: where an unguarded
                // increment loses another's.
                frame.fuzzPoint()
                state.value.pointee = value
                frame.r1 = value
                return .next
            }]
        }
        return [
            LinearizableForm("increment", matches: { $0 == .increment }, steps: incrementSteps) { _, frame in frame.r1 },
            LinearizableForm("read", matches: { $0 == .read }, steps: [Step("load", access: .read(0)) { state, frame in
                frame.r1 = state.value.pointee
                return .next
            }]) { _, frame in frame.r1 },
        ]
    }
}
