import StressCore

extension StressTest {
    /// Fails the round here when `condition` is false, as C's `assert` ends
    /// a program: for a role of ``race(setup:_:mainThread:check:fileID:line:column:)``,
    /// a ``model(spawning:setup:mainThread:_:fileID:line:column:)`` body or a closure
    /// it spawned.
    ///
    /// ```swift
    /// try StressTest.check(account.balance >= 0, "the balance went negative")
    /// ```
    ///
    /// A failed check books a violation with `message` and its place in the
    /// source (`check failed at BankTests.swift:42: the balance went
    /// negative`) and throws, which ends the closure it is in; the round's
    /// final check is skipped. Under controlled scheduling the trial also
    /// stops: the failing interleaving's trace ends at the check, and the
    /// other roles finish the round under control, so a replay makes the same
    /// decisions. Free-running, the other roles finish the round and the
    /// trial goes on (unless it stops at its first violation).
    ///
    /// Outside a trial it only throws.
    ///
    /// - Parameters:
    ///   - condition: What must hold here.
    ///   - message: What went wrong when it does not; evaluated only then.
    ///   - fileID: The check's file (the compiler fills it in).
    ///   - line: The check's line (the compiler fills it in).
    /// - Throws: An error describing the failed check, when `condition` is false.
    public static func check(
        _ condition: @autoclosure () throws -> Bool, _ message: @autoclosure () -> String = "",
        fileID: StaticString = #fileID, line: UInt = #line
    ) throws {
        guard try !condition() else { return }
        let file = "\(fileID)".split(separator: "/").last.map(String.init) ?? "\(fileID)"
        let said = message()
        let text = "check failed at \(file):\(line)" + (said.isEmpty ? "" : ": \(said)")
        reportFailedCheck(text, file: fileID, line: line)
        throw FailedCheck(message: text)
    }
}
