/// What a trial's coordinator does with a gate its workers meet at: the
/// same for the thread driver's gates (``ThreadGate``) and the task driver's
/// (``TaskGate``), so one coordinator (``TrialPhases``) serves both.
protocol PhaseGate: AnyObject, Sendable {
    /// Blocks the coordinator until every worker has arrived.
    func waitForAll()
    /// Whether every worker has arrived (a look, without waiting).
    var hasAllArrived: Bool { get }
    /// Lets the workers through.
    func release()
}

extension ThreadGate: PhaseGate {}
extension TaskGate: PhaseGate {}
