import ArgumentParser
import Foundation
import StressKit

// The harness's own benchmarks, as the scripts run them. Exit codes as
// `stressbench`'s: 2 for a usage error (ArgumentParser's own would be 64).
do {
    var command = try StressBenchDevCommand.parseAsRoot()
    try command.run()
    exit(0)
} catch let code as ExitCode {
    exit(code.rawValue)
} catch {
    if StressBenchDevCommand.exitCode(for: error) == .success {
        print(StressBenchDevCommand.fullMessage(for: error))
        exit(0)
    }
    fflush(nil)  // what went to standard output first stays first in a log holding both
    FileHandle.standardError.write(Data((StressBenchDevCommand.fullMessage(for: error) + "\n").utf8))
    exit(RunExitCode.usage.rawValue)
}
