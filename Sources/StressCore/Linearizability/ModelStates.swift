/// The model states one partition's search has met, each kept once and
/// numbered from 0 (the initial model), so the search itself deals in
/// numbers: it hashes and compares an `Int32`, not the user's model, and
/// runs the user's `apply` only the first time it tries an operation from a
/// state. The generic half of the search; everything else is concrete.
///
/// The states are interned in an open-addressing table that keeps each
/// state's hash, so growing it never hashes a model again (a model's hash
/// may cost as much as its whole state: a dictionary of long strings).
///
/// A class so the search can call into it from a closure while it mutates
/// its own stored state.
final class ModelStates<M: SequentialModel> {
    private let operations: [M.Operation]
    private let results: [M.Result?]
    /// The states, by number, and each one's hash.
    private(set) var states: [M]
    private var hashes: [Int]
    /// State number + 1 per slot (0: empty); a power of two long.
    private var slots: [Int32]

    /// The states of a partition whose operations are `operations`, with
    /// recorded `results` (nil: pending), starting from `model` (number 0).
    init(model: M, operations: [M.Operation], results: [M.Result?]) {
        self.operations = operations
        self.results = results
        states = []
        hashes = []
        slots = [Int32](repeating: 0, count: 16)
        _ = number(of: model)
    }

    /// The number of the state `operation` leads to from state `state`, or
    /// ``TransitionTable/mismatch`` when the model's result is not the
    /// recorded one (a pending operation's result always fits).
    func next(from state: Int32, by operation: Int) -> Int32 {
        var model = states[Int(state)]
        let result = model.apply(operations[operation])
        if let recorded = results[operation], recorded != result { return TransitionTable.mismatch }
        // An operation that changed nothing, told apart without hashing: a
        // copy-on-write state it did not write to compares equal at once.
        if model == states[Int(state)] { return state }
        return number(of: model)
    }

    /// `model`'s number, given it now if it is new.
    private func number(of model: M) -> Int32 {
        let hash = model.hashValue
        let mask = slots.count - 1
        var slot = Self.slot(hash, mask)
        while slots[slot] != 0 {
            let number = Int(slots[slot]) - 1
            if hashes[number] == hash && states[number] == model { return Int32(number) }
            slot = (slot + 1) & mask
        }
        let number = states.count
        slots[slot] = Int32(number + 1)
        states.append(model)
        hashes.append(hash)
        if states.count * 2 > slots.count { grow() }
        return Int32(number)
    }

    private func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for number in hashes.indices {
            var slot = Self.slot(hashes[number], mask)
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(number + 1)
        }
    }

    private static func slot(_ hash: Int, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: SplitMix64.mix(UInt64(bitPattern: Int64(hash)))) & mask
    }
}
