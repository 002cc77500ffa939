/// When the measured window ends.
package enum StopCondition: Sendable, Equatable {
    /// After this many nanoseconds of wall time.
    case duration(nanoseconds: UInt64)
    /// After each worker has completed this many operations.
    case operations(perThread: Int)
}

extension StopCondition {
    /// The measured window, when the trial stops by time.
    package var durationNs: UInt64? {
        if case .duration(let ns) = self { return ns }
        return nil
    }

    /// Operations per thread, when the trial stops by count.
    package var opsPerThread: Int? {
        if case .operations(let n) = self { return n }
        return nil
    }
}
