import Foundation
import StressKit

/// A file a command reads: its plan, a baseline, the results files it
/// compares or merges, an executable it runs. No output of the command may
/// name one: `run q.yaml --json q.yaml` would otherwise replace the plan with
/// its results, and every rerun command printed afterwards would point at the
/// ruined file.
struct InputFile {
    /// What the file is to the command, for the error: "the plan file".
    var role: String
    /// The path as given.
    var path: String

    /// The executable of this process, which `run` starts again for every
    /// trial (an output over it would break the build, not just the run).
    static var runningExecutable: InputFile {
        InputFile(role: "the running stressbench executable", path: TrialIsolation.currentExecutablePath)
    }

    /// A usage error (exit code 2) when an output file, or a `.hgrm` file a
    /// histogram directory can receive, is one of `inputs`, however the paths
    /// are spelled: through symbolic links, `..`, hard links (the same
    /// device and inode), or a descriptor the shell pointed at the file
    /// (`--json - >> plan.yaml`).
    static func checkNoneIsWritten(files: [(option: String, path: String?)], directories: [(option: String, path: String?)],
                                   inputs: [InputFile]) throws {
        let read = inputs.map { (input: $0, identity: AtomicFile.identity(of: $0.path)) }
        for (option, path) in files {
            guard let path, let hit = read.first(where: { $0.identity == AtomicFile.identity(of: path) }) else { continue }
            throw refusal(option: option, output: path, input: hit.input)
        }
        // A histogram file is DIR/<trial id>.hgrm: an input in DIR with that
        // ending could be one of them, whatever the trial ids turn out to be.
        for (option, path) in directories {
            guard let path else { continue }
            let directory = AtomicFile.identity(of: path)
            for input in inputs where input.path.hasSuffix(".hgrm") {
                let parent = URL(fileURLWithPath: input.path).deletingLastPathComponent().path
                if AtomicFile.identity(of: parent) == directory {
                    throw CommandError.usage("\(option) \(path.terminalSafe) would receive .hgrm files beside \(input.role) \(input.path.terminalSafe), "
                                             + "which one of them could replace: choose another directory; nothing was run")
                }
            }
        }
    }

    private static func refusal(option: String, output: String, input: InputFile) -> CommandError {
        let redirected = (try? AtomicFile.destination(of: output)).map { destination in
            switch destination {
            case .standardOutput, .descriptor: return true
            case .regularFile, .special: return false
            }
        } ?? false
        let same = output == input.path ? "" : redirected ? " (the shell redirected that stream to it)" : " (the same file)"
        return CommandError.usage("\(option) \(output.terminalSafe) names \(input.role) \(input.path.terminalSafe)\(same): "
                                  + "an output never replaces a file the command reads; write it elsewhere; nothing was run")
    }
}
