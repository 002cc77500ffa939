import StressBenchCLI
import StressKit

// The stressbench command line with this team's workload added: `list`,
// `validate` and `run` know `seats`, and every trial runs in a child process of
// this same executable, which has the same registrations.
var registry = StressRegistry.builtIn
registry.register(workload: SeatsWorkload.self)
StressBenchMain.main(registry: registry)
