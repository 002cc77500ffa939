import StressKit

/// What `run` does when it selected no trial: a shard the matrix left empty
/// is a normal part of a split (a plan of 2 cells over 3 machines), so it runs
/// nothing, writes empty results files that `merge` takes with the others, and
/// exits 0; an `--only` that matches nothing anywhere is a usage error.
enum EmptyShard {
    /// Says why nothing was selected: prints a note and returns for an empty
    /// shard, throws a usage error for an `--only` that names no trial of the
    /// plan.
    static func explain(shard: TrialShard?, only: [String], matrix: [TrialSpec]) throws {
        let matchesSomewhere = matrix.contains { RunReport.isSelected($0.id, by: only) }
        guard let shard, matchesSomewhere else {
            let ids = matrix.prefix(5).map(\.id).joined(separator: ", ")
            throw CommandError.usage("--only matched no trial; ids look like: \(ids)")
        }
        let cells = Set(matrix.map(CellKey.init)).count
        let why = only.isEmpty
            ? "the plan's \(cells) cell(s) all went to other shards"
            : "the trials --only selects all went to other shards"
        Console.error("note: shard \(shard) has no trials (\(why)); its results files are empty, and `merge` takes them with the other shards'")
    }
}
