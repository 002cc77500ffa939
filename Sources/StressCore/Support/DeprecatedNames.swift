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

extension Step {
    /// The former name of ``awaiting(_:_:)``, renamed so that the step and
    /// its access (``StepAccess/awaiting``) are called by one word.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - body: The step's work; it may `await`, and returns what the worker does next.
    /// - Returns: The step.
    @available(*, deprecated, renamed: "awaiting(_:_:)")
    public static func async(_ name: String, _ body: @escaping @Sendable (State, inout OpFrame) async -> StepResult) -> Step {
        awaiting(name, body)
    }

    /// The former name of ``nestedWrites(_:resources:_:)``, renamed so that
    /// the step and its access (``StepAccess/nestedWrites(_:)``) are called
    /// by one word.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resources: The resources to take, outermost first.
    ///   - body: The step's work, run holding all of them.
    /// - Returns: The step.
    @available(*, deprecated, renamed: "nestedWrites(_:resources:_:)")
    public static func nested(
        _ name: String, resources: [Int], _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) -> Step {
        nestedWrites(name, resources: resources, body)
    }

    /// The former form of `waitUntil(_:resource:timeout:_:then:)`, with its
    /// timeout in integer nanoseconds; every duration of the API is now a `Duration`.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resource: The resource the step waits on and then holds exclusively.
    ///   - timeout: How long the step may wait in all, in nanoseconds.
    ///   - predicate: The condition to wait for, checked with the resource held.
    ///   - body: What runs, still holding the resource, once `predicate` holds.
    /// - Returns: The step.
    @available(*, deprecated, message: "pass the timeout as a Duration: timeout: .milliseconds(500)")
    public static func waitUntil(
        _ name: String, resource: Int = 0, timeout: Int,
        _ predicate: @escaping @Sendable (State, inout OpFrame) -> Bool,
        then body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) -> Step {
        waitUntil(name, resource: resource, timeout: .nanoseconds(timeout), predicate, then: body)
    }
}

extension LatencySummary {
    /// The former name of the smallest sample, in integer nanoseconds: read ``minimum``, a `Duration`.
    @available(*, deprecated, message: "read minimum, a Duration")
    public var minNs: Int { minNanoseconds }
    /// The former name of the mean, in nanoseconds: read ``mean``, a `Duration`.
    @available(*, deprecated, message: "read mean, a Duration")
    public var meanNs: Double { meanNanoseconds }
    /// The former name of the median, in integer nanoseconds: read ``p50``, a `Duration`.
    @available(*, deprecated, message: "read p50, a Duration")
    public var p50Ns: Int { p50Nanoseconds }
    /// The former name of the 90th percentile, in integer nanoseconds: read ``p90``, a `Duration`.
    @available(*, deprecated, message: "read p90, a Duration")
    public var p90Ns: Int { p90Nanoseconds }
    /// The former name of the 99th percentile, in integer nanoseconds: read ``p99``, a `Duration`.
    @available(*, deprecated, message: "read p99, a Duration")
    public var p99Ns: Int { p99Nanoseconds }
    /// The former name of the 99.9th percentile, in integer nanoseconds: read ``p999``, a `Duration`.
    @available(*, deprecated, message: "read p999, a Duration")
    public var p999Ns: Int { p999Nanoseconds }
    /// The former name of the 99.99th percentile, in integer nanoseconds: read ``p9999``, a `Duration`.
    @available(*, deprecated, message: "read p9999, a Duration")
    public var p9999Ns: Int { p9999Nanoseconds }
    /// The former name of the largest sample, in integer nanoseconds: read ``maximum``, a `Duration`.
    @available(*, deprecated, message: "read maximum, a Duration")
    public var maxNs: Int { maxNanoseconds }
}

extension StallReport {
    /// The former name of ``stalledFor``, in integer nanoseconds.
    @available(*, deprecated, message: "read stalledFor, a Duration")
    public var stalledForNs: Int { stalledForNanoseconds }
    /// The former name of ``beganAfter``, in integer nanoseconds.
    @available(*, deprecated, message: "read beganAfter, a Duration")
    public var beganAfterNs: Int? { beganAfterNanoseconds }
}

extension ViolationReport {
    /// The former name of ``firstAfter``, in integer nanoseconds.
    @available(*, deprecated, message: "read firstAfter, a Duration")
    public var firstAfterNs: Int? { firstAfterNanoseconds }
}

extension TrialMeasurement {
    /// The former name of ``elapsed``, in integer nanoseconds.
    @available(*, deprecated, message: "read elapsed, a Duration")
    public var elapsedNs: Int { elapsedNanoseconds }
    /// The former name of ``longestGaps``, in integer nanoseconds per worker.
    @available(*, deprecated, message: "read longestGaps, Durations")
    public var maxStallNs: [Int]? { longestGapNanoseconds }
}

extension FuzzSettings {
    /// The former name of ``spinMin``, in integer nanoseconds.
    @available(*, deprecated, message: "use spinMin, a Duration")
    public var spinMinNs: UInt64 {
        get { spinMinNanoseconds }
        set { spinMinNanoseconds = newValue }
    }
    /// The former name of ``spinMax``, in integer nanoseconds.
    @available(*, deprecated, message: "use spinMax, a Duration")
    public var spinMaxNs: UInt64 {
        get { spinMaxNanoseconds }
        set { spinMaxNanoseconds = newValue }
    }
    /// The former name of ``sleepMin``, in integer nanoseconds.
    @available(*, deprecated, message: "use sleepMin, a Duration")
    public var sleepMinNs: UInt64 {
        get { sleepMinNanoseconds }
        set { sleepMinNanoseconds = newValue }
    }
    /// The former name of ``sleepMax``, in integer nanoseconds.
    @available(*, deprecated, message: "use sleepMax, a Duration")
    public var sleepMaxNs: UInt64 {
        get { sleepMaxNanoseconds }
        set { sleepMaxNanoseconds = newValue }
    }
    /// The former name of ``starveMin``, in integer nanoseconds.
    @available(*, deprecated, message: "use starveMin, a Duration")
    public var starveMinNs: UInt64 {
        get { starveMinNanoseconds }
        set { starveMinNanoseconds = newValue }
    }
    /// The former name of ``starveMax``, in integer nanoseconds.
    @available(*, deprecated, message: "use starveMax, a Duration")
    public var starveMaxNs: UInt64 {
        get { starveMaxNanoseconds }
        set { starveMaxNanoseconds = newValue }
    }
    /// The former name of ``pctWaitCap``, in integer nanoseconds.
    @available(*, deprecated, message: "use pctWaitCap, a Duration")
    public var pctWaitCapNs: UInt64 {
        get { pctWaitCapNanoseconds }
        set { pctWaitCapNanoseconds = newValue }
    }
    /// The former name of ``staggerMax``, in integer nanoseconds.
    @available(*, deprecated, message: "use staggerMax, a Duration")
    public var staggerMaxNs: UInt64 {
        get { staggerMaxNanoseconds }
        set { staggerMaxNanoseconds = newValue }
    }
}
