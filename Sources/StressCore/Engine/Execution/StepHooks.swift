/// What one of the engine's loops does at the points of a guarded step's
/// sequence (``StepPath``) besides asking for the access and running the body:
/// publishing where the worker is, timing the wait, the fuzz points, the
/// signals `waitUntil` steps wait for.
///
/// The sequence is written once; each loop is a specialization of it with its
/// own conformer, whose empty hooks compile to nothing (the sequence and the
/// hooks are always inlined), so a hot loop pays for exactly the hooks it has.
protocol StepHooks {
    /// Before anything else: the step published as waiting for its access.
    func waiting(_ frame: inout OpFrame)
    /// Just before asking for a section; `inner` for the inner section of a
    /// nested write. Returns the clock reading the wait is timed from (0 when
    /// this loop does not time it).
    mutating func asking(_ frame: inout OpFrame, inner: Bool) -> UInt64
    /// Inside a nested write's outer section, before asking for the inner one.
    mutating func enteredOuter(_ asked: UInt64, _ frame: inout OpFrame)
    /// Inside the step's section (a nested write's inner one), before its body.
    mutating func entered(_ asked: UInt64, _ frame: inout OpFrame)
    /// After the body, still inside a section, before it is released; `innermost`
    /// for the section the body ran in.
    mutating func leaving(_ frame: inout OpFrame, innermost: Bool)
    /// After the step's last section is released.
    mutating func left(_ frame: inout OpFrame)
}
