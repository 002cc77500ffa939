import AsyncExample
import OwnCodeExample
import StressBenchCLI
import StressKit

// The built-in catalogue, plus the examples of testing a team's own code
// (Examples/OwnCode, run by Plans/own-code.yaml) and its async code
// (Examples/Async, run by Plans/async.yaml).
var registry = StressRegistry.builtIn
OwnCodeExamples.register(in: &registry)
AsyncExamples.register(in: &registry)
StressBenchMain.main(registry: registry)
