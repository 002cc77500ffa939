/// What a step reports back to the engine.
public enum StepResult: Sendable, Equatable {
    /// Go on with the operation's next step (or end it, after the last step).
    case next
    /// End the operation here, successfully (for example a withdraw that found
    /// too little money and gave up).
    case finish
    /// An invariant broke. The engine counts it, keeps the first few messages with
    /// the thread, operation, step and op number, and ends the operation.
    case violation(String)
}
