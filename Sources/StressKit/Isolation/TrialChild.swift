import CStressSupport
import Foundation

/// The child side of process isolation: reads a ``TrialSpec`` from standard
/// input, runs it in this process, and writes one ``TrialResult`` as JSON to the
/// result descriptor (3, or `STRESSBENCH_RESULT_FD`).
///
/// A custom executable that wants child-process isolation for its own workloads
/// calls this from its trial command (``StressBenchCLI`` does it for you).
public enum TrialChild {
    /// Environment variable naming the descriptor to write the result to.
    public static let resultDescriptorVariable = "STRESSBENCH_RESULT_FD"

    /// Runs the trial on standard input and exits: 0 when a record was written,
    /// 2 when the input was not a trial spec.
    public static func main(registry: StressRegistry) -> Never {
        _ = stress_die_with_parent()
        let input = FileHandle.standardInput.readDataToEndOfFile()
        guard let spec = try? ResultCoding.decoder().decode(TrialSpec.self, from: input) else {
            FileHandle.standardError.write(Data("stressbench _trial: standard input is not a trial spec (this command is internal to stressbench run)\n".utf8))
            exit(2)
        }
        let result = LocalTrial.run(spec, registry: registry)
        let fd = ProcessInfo.processInfo.environment[resultDescriptorVariable].flatMap(Int32.init) ?? ChildProcess.resultDescriptor
        guard let data = try? ResultCoding.encoder(pretty: false).encode(result) else { exit(3) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        do { try handle.write(contentsOf: data + Data("\n".utf8)) } catch { exit(3) }
        exit(0)
    }
}

/// Runs one trial in this process and turns what the engine reports into a record.
public enum LocalTrial {
    /// The record of running `spec` here.
    public static func run(_ spec: TrialSpec, registry: StressRegistry) -> TrialResult {
        guard let workload = registry.workload(named: spec.workload) else {
            return .failed(spec, .error, FailureReport(message: "this binary has no workload named '\(spec.workload)'"))
        }
        guard let strategy = registry.strategy(named: spec.strategy) else {
            return .failed(spec, .error, FailureReport(message: "this binary has no strategy named '\(spec.strategy)'"))
        }
        do {
            let output = try workload.run(spec.parameters, strategy, TrialSettings(spec))
            return TrialResult(
                trial: spec, outcome: output.violations.count > 0 ? .violated : .passed,
                measurement: output.measurement, violations: output.violations, failure: nil
            )
        } catch {
            return .failed(spec, .error, FailureReport(message: "could not run the trial: \(error)"))
        }
    }
}
