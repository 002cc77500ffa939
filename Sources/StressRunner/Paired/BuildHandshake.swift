import Foundation
import StressCore

/// Asks an executable how it would run a plan: `EXECUTABLE _describe PLAN
/// --output-fd 3 [--repetitions N] [--allow-large]`, answered with a
/// ``BuildDescription`` on descriptor 3. Every `stressbench`, and every
/// team's own executable built on `StressBenchCLI`, answers it.
package enum BuildHandshake {
    /// The hidden subcommand that describes a plan.
    public static let describeCommand = "_describe"

    /// How long an executable may take to describe a plan (loading it and
    /// expanding its matrix takes milliseconds; a program that is not a
    /// stressbench may wait for input forever).
    public static let timeoutNs: UInt64 = 60_000_000_000

    /// Why `path` cannot be run as a build, or nil when it can: it must
    /// exist, be a regular file (after symbolic links) and be executable.
    public static func problem(withExecutable path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return "\(path.terminalSafe): no such file"
        }
        if isDirectory.boolValue { return "\(path.terminalSafe) is a directory, not an executable" }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            return "\(path.terminalSafe) is not executable (chmod +x it, or give the built binary, e.g. .build/release/stressbench)"
        }
        return nil
    }

    /// The description `executable` gives of the plan at `planFile` with
    /// `repetitions` trials per cell (nil: the plan's own). Throws a message
    /// that says what went wrong: the file, the plan, or an executable that
    /// is not a stressbench.
    public static func describe(
        executable: String, planFile: String, repetitions: Int?, allowLarge: Bool
    ) throws(RunError) -> BuildDescription {
        if let problem = problem(withExecutable: executable) { throw RunError(description: problem) }
        var arguments = [describeCommand, planFile, "--output-fd", String(ChildProcess.resultDescriptor)]
        if let repetitions { arguments += ["--repetitions", String(repetitions)] }
        if allowLarge { arguments.append("--allow-large") }
        let capture: ChildCapture
        do {
            capture = try ChildProcess.run(executable: executable, arguments: arguments, input: [], timeoutNs: timeoutNs)
        } catch {
            throw RunError(description: "cannot start \(executable.terminalSafe): \(error.description)")
        }
        let output = PlanRunner.lastLines(capture.outputTail, count: 30).joined(separator: "\n")
        let notStressbench = "\(executable.terminalSafe) is not a stressbench-compatible executable (a `stressbench`, or a team's own "
            + "executable that calls StressBenchMain.main, of this version)"
        switch capture.termination {
        case .exited(0):
            break
        case .exited(2) where capture.result.isEmpty && output.contains(planFile):
            // What a stressbench says about a plan it cannot load: its problems, naming the file.
            throw RunError(description: "\(executable.terminalSafe) cannot run the plan:\n\(output)")
        case .exited(let status):
            throw RunError(description: "\(notStressbench): `\(executable.terminalSafe) \(describeCommand)` exited with status \(status)"
                           + (output.isEmpty ? "" : ":\n\(output)"))
        case .signaled(let signal):
            throw RunError(description: "\(notStressbench): `\(executable.terminalSafe) \(describeCommand)` died of \(ChildProcess.signalName(signal))")
        case .timedOut:
            throw RunError(description: "\(notStressbench): it did not describe the plan within \(timeoutNs / 1_000_000_000)s")
        case .interrupted:
            throw RunError(description: "interrupted while \(executable.terminalSafe) described the plan")
        }
        guard !capture.result.isEmpty else {
            throw RunError(description: "\(notStressbench): it exited without describing the plan"
                           + (output.isEmpty ? "" : "; it printed:\n\(output)"))
        }
        struct Header: Decodable { var schema: String? }
        let data = Data(capture.result)
        guard let header = try? ResultCoding.decoder().decode(Header.self, from: data) else {
            throw RunError(description: "\(notStressbench): its description is not JSON")
        }
        guard header.schema == BuildDescription.currentSchema else {
            throw RunError(description: "\(executable.terminalSafe) describes plans as '\(header.schema ?? "none")'; "
                           + "this stressbench reads '\(BuildDescription.currentSchema)': build both with the same stressbench version")
        }
        do {
            return try ResultCoding.decoder().decode(BuildDescription.self, from: data)
        } catch {
            throw RunError(description: "\(executable.terminalSafe)'s description does not match \(BuildDescription.currentSchema): \(error)")
        }
    }
}
