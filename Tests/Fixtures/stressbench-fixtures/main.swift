import AsyncExample
import OwnCodeExample
import StressBenchCLI
import StressKit
import StressKitFixtures

// `stressbench` as it ships (Sources/stressbench/main.swift), plus the test
// fixtures: the binary the tests run wherever a plan names `_fault`,
// `_hang-in-round` or `_stuck-in-round`, as the command line and as the
// trial child process. Not a product.
var registry = StressRegistry.builtIn
OwnCodeExamples.register(in: &registry)
AsyncExamples.register(in: &registry)
TestFixtures.register(in: &registry)
StressBenchMain.main(registry: registry)
