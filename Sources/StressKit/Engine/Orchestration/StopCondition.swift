/// When the measured window ends.
package enum StopCondition: Sendable, Equatable {
    /// After this many nanoseconds of wall time.
    case duration(nanoseconds: UInt64)
    /// After each worker has completed this many operations.
    case operations(perThread: Int)
}
