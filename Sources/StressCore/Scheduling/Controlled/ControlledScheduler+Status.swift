extension ControlledScheduler {
    /// What a worker is doing, in the scheduler's eyes.
    enum Status: UInt8 {
        /// Not at the start yet.
        case absent
        /// May run when chosen.
        case runnable
        /// Waits for a resource of the model (``waitKey``) to free.
        case blocked
        /// Waits on a condition (``waitKey``) to be signalled.
        case waiting
        /// Waits on a condition, with a deadline (virtual: it passes when
        /// the policy chooses so, or when nothing else can run; see
        /// ``timeoutCandidate(earliest:)``).
        case timedWaiting
        /// Blocked outside any scheduling point (see ``EscapeMonitor``):
        /// running uncontrolled until it reaches its next point.
        case escaped
        /// Left its loop.
        case finished
        /// The main thread (see ``mainSlot``) or a queue worker (see
        /// ``submit(_:queue:concurrent:barrier:delayed:run:)``) with no block
        /// of the trial it may run: neither runnable nor stuck, and not live
        /// either (a trial whose workers all finished with the others idle
        /// is over, not deadlocked).
        case idle
    }
}
