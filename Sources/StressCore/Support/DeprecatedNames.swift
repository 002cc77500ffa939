// Public names that were renamed, kept for one release so that a client's
// code goes on compiling (with a deprecation warning that names the new
// name, and a fix-it) while it moves over. Remove each after the release
// that follows its rename.

extension Workload {
    /// The former name of ``StressOperation``, where a workload's code used it:
    /// `func operations() -> [Operation<State>]`, `Operation("get", weight: 1, steps: …)`.
    ///
    /// It was renamed because Foundation's `Operation` (NSOperation) and
    /// StressKit's were ambiguous in every file that imports both. So the
    /// old name comes back only as a member of workload types, and only
    /// with generic arguments: at file scope, and wherever `Operation` is
    /// written without them (`class Fetch: Operation`, `func run(_ op:
    /// Operation)`, even inside a workload), it is Foundation's, as it is
    /// without StressKit. A module-level alias would make every such use
    /// in a file importing both ambiguous again.
    @available(*, deprecated, renamed: "StressOperation")
    public typealias Operation<OperationState: AnyObject & Sendable> = StressOperation<OperationState>
}
