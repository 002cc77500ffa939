import CStressSupport

/// Books a failed check of the code under test (`StressTest.check`) on the
/// calling worker: a violation with `message`, and, under controlled
/// scheduling, the end of the trace and of the trial at this decision (see
/// ``ControlledScheduler/checkFailed(_:file:line:)``). On a task worker it
/// is a plain ``reportViolation(_:)``; outside a trial it does nothing.
///
/// - Parameters:
///   - message: What failed, with the check's place in the source.
///   - file: The check's file.
///   - line: The check's line.
/// - Returns: Whether a trial recorded it.
@discardableResult
package func reportFailedCheck(_ message: String, file: StaticString, line: UInt) -> Bool {
    guard let raw = stress_ambient() else { return reportViolation(message) }
    let context = AmbientContext.at(raw)
    context.pointee.scheduling?.checkFailed(context.pointee.thread, file: file, line: line)
    context.pointee.record(message)
    return true
}
