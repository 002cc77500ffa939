import CStressSupport
import Foundation
import StressCore

/// The child side of an isolated ``StressTest``: the test binary, run again
/// with only the test selected, reaches the same `StressTest` call, which
/// finds this process is a trial process and runs the trial it was sent.
///
/// The parent (``PlanRunner`` with ``RunOptions/childEnvironment``) names
/// the call in ``callSiteVariable`` and writes the ``TrialSpec`` to standard
/// input, as it does for `stressbench _trial`; the record goes back the same
/// way, as one JSON line on the result descriptor (see ``TrialChild``).
/// Re-running the test itself, rather than a separate trial command, is what
/// gives the child the test's own registrations: a workload or strategy type
/// handed to the builder exists in the child because the same line of the
/// same test made it.
package enum TestChild {
    /// The variable the parent names the call by (`Module/File.swift:12:9`).
    package static let callSiteVariable = "STRESSBENCH_TEST_CALL"

    /// The call site this process was started for; nil in an ordinary test
    /// process.
    package static var wantedCallSite: String? { ProcessInfo.processInfo.environment[callSiteVariable] }

    /// The trial the parent sent, read from standard input once: a
    /// parameterized test can reach the call several times, and only the
    /// case whose settings make this trial takes it.
    package static let spec: TrialSpec? = {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        return try? ResultCoding.decoder().decode(TrialSpec.self, from: input)
    }()

    /// Runs `spec` here, writes its record for the parent, and ends the
    /// process without running the rest of the test (whose outcome nobody
    /// reads) or the test library's exit handlers (`_exit`: other threads of
    /// the test library may still be running).
    package static func run(_ spec: TrialSpec, registry: StressRegistry) -> Never {
        _ = stress_die_with_parent()
        let environment = ProcessInfo.processInfo.environment
        // A parent gone before that call took effect has nobody to report to.
        if let parent = environment[TrialChild.parentVariable].flatMap(Int32.init), getppid() != parent { _exit(3) }
        let fd = environment[TrialChild.resultDescriptorVariable].flatMap(Int32.init) ?? ChildProcess.resultDescriptor
        // On XCTest's main thread, the trial runs on a thread of its own while
        // the main thread serves the main queue; elsewhere, right here.
        let result = MainThreadService.run {
            LocalTrial.run(spec, registry: registry, onStall: TrialChild.handOverStalled(to: fd))
        }
        TrialChild.deliver(result, to: fd)
        _exit(0)
    }
}
