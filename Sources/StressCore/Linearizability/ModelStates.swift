/// The model states one partition's search has met, each kept once and
/// numbered from 0 (the initial model), so the search itself deals in
/// numbers: it hashes and compares an `Int32`, not the user's model, and
/// runs the user's `apply` only the first time it tries an operation from a
/// state. The generic half of the search; everything else is concrete.
///
/// A class so the search can call into it from a closure while it mutates
/// its own stored state.
final class ModelStates<M: SequentialModel> {
    private let operations: [M.Operation]
    private let results: [M.Result?]
    /// The states, by number.
    private(set) var states: [M]
    private var numbers: [M: Int32]

    /// The states of a partition whose operations are `operations`, with
    /// recorded `results` (nil: pending), starting from `model` (number 0).
    init(model: M, operations: [M.Operation], results: [M.Result?]) {
        self.operations = operations
        self.results = results
        states = [model]
        numbers = [model: 0]
    }

    /// The number of the state `operation` leads to from state `state`, or
    /// ``TransitionTable/mismatch`` when the model's result is not the
    /// recorded one (a pending operation's result always fits).
    func next(from state: Int32, by operation: Int) -> Int32 {
        var model = states[Int(state)]
        let result = model.apply(operations[operation])
        if let recorded = results[operation], recorded != result { return TransitionTable.mismatch }
        if let number = numbers[model] { return number }
        let number = Int32(states.count)
        states.append(model)
        numbers[model] = number
        return number
    }
}
