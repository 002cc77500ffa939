/// Where the code under test made an unnamed harness-aware primitive, and
/// what it is.
struct MadeAt {
    /// What it is, as a report says it: "StressLock", "lock of the StressCondition".
    var noun: StaticString
    /// `#fileID` and `#line` of the call that made it.
    var file: StaticString
    var line: UInt
    /// Orders the primitives made at one place (a lock per account, made in a loop).
    var sequence: UInt64

    func isSamePlaceAndKind(as other: MadeAt) -> Bool {
        line == other.line && noun.description == other.noun.description && file.description == other.file.description
    }

    /// "the StressLock made at Ledger/Ledger.swift:12", "the 2nd StressLock
    /// made at Ledger/Ledger.swift:12".
    func description(rank: Int) -> String {
        "the " + (rank > 1 ? FirstTaken.ordinal(rank) + " " : "") + "\(noun) made at \(file):\(line)"
    }
}
