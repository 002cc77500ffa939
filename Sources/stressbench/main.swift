import OwnCodeExample
import StressBenchCLI
import StressKit

// The built-in catalogue, plus the examples of testing a team's own code
// (Examples/OwnCode, run by Plans/own-code.yaml).
var registry = StressRegistry.builtIn
OwnCodeExamples.register(in: &registry)
StressBenchMain.main(registry: registry)
