// StressKit is what a team imports: the vocabulary and the engine
// (StressCore), running plans and reading their results (StressRunner), and
// StressTest. One import gives all three.
@_exported import StressCore
@_exported import StressRunner
