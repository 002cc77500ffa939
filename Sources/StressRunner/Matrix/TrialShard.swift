import StressCore

/// One of `count` deterministic slices of a plan's matrix (`--shard 2/4`), so a
/// CI matrix can spread a big plan over machines and `stressbench merge` can
/// put the results back together.
///
/// The unit is the cell (experiment × strategy × threads × fuzz profile): all
/// repetitions of a cell run on the same machine, so the distribution a
/// baseline comparison sees is never a mix of two machines. Cells are dealt
/// out longest first, each to the shard with the least expected time so far
/// (ties to the lowest shard), which balances shards by expected duration
/// rather than by trial count; within a shard trials keep the plan's order. The
/// slices depend only on the plan, so every machine computes the same ones and
/// together they cover every trial exactly once.
package struct TrialShard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based shard number.
    public let index: Int
    /// How many shards.
    public let count: Int

    /// Shard `index` of `count` (1 ≤ index ≤ count).
    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Reads `i/n`, or throws a message saying what was expected.
    public init(parsing text: String) throws(ShardSyntaxError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw ShardSyntaxError(message: "--shard expects i/n such as 1/4 (shard i of n, counted from 1), got '\(text)'")
        }
        guard let shard = TrialShard(index: i, count: n) else {
            throw ShardSyntaxError(message: "--shard \(text): expected 1 ≤ i ≤ n and n ≥ 1")
        }
        self = shard
    }

    /// `2/4`.
    public var description: String { "\(index)/\(count)" }

    /// The trials of `matrix` (a whole expanded plan) that belong to this shard,
    /// in the plan's order.
    public func select(_ matrix: [TrialSpec]) -> [TrialSpec] {
        let assignment = Self.assign(matrix, shards: count)
        return matrix.indices.filter { assignment[$0] == index - 1 }.map { matrix[$0] }
    }

    /// The 0-based shard of every trial of `matrix`.
    static func assign(_ matrix: [TrialSpec], shards: Int) -> [Int] {
        var cells: [CellKey: (first: Int, seconds: Double, members: [Int])] = [:]
        for (i, t) in matrix.enumerated() {
            let key = CellKey(t)
            var cell = cells[key] ?? (i, 0, [])
            cell.seconds += TrialDurationEstimate.seconds(t)
            cell.members.append(i)
            cells[key] = cell
        }
        // Longest first; equal lengths in matrix order, so the result is the same everywhere.
        let ordered = cells.values.sorted { $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.first < $1.first }
        var load = [Double](repeating: 0, count: shards)
        var assignment = [Int](repeating: 0, count: matrix.count)
        for cell in ordered {
            let target = load.indices.min { load[$0] != load[$1] ? load[$0] < load[$1] : $0 < $1 }!
            load[target] += cell.seconds
            for m in cell.members { assignment[m] = target }
        }
        return assignment
    }
}

extension TrialShard: Codable {
    private enum CodingKeys: String, CodingKey { case index, count }

    /// Decodes `{"index": i, "count": n}`, refusing a shard outside 1...n.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let index = try c.decode(Int.self, forKey: .index), count = try c.decode(Int.self, forKey: .count)
        guard let shard = TrialShard(index: index, count: count) else {
            throw DecodingError.dataCorruptedError(forKey: .index, in: c, debugDescription: "shard \(index)/\(count): expected 1 ≤ index ≤ count")
        }
        self = shard
    }

    /// Encodes `{"index": i, "count": n}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(count, forKey: .count)
    }
}

/// A `--shard` value that is not `i/n`.
package struct ShardSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What was expected.
    public var message: String
    /// The message.
    public var description: String { message }
}
