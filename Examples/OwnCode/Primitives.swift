import StressKit

// The one change a team makes to test its own code: the type of its
// primitives. In the app these would be Foundation's and Dispatch's:
//
//     #if STRESS_TESTS
//     typealias Lock = StressLock
//     typealias Condition = StressCondition
//     typealias Queue = StressQueue
//     #else
//     typealias Lock = NSLock
//     typealias Condition = NSCondition
//     typealias Queue = DispatchQueue
//     #endif
//
// This example is only ever built for stress tests, so it names the
// harness-aware types directly. (In a trial's child process a plain `NSLock`
// or `NSCondition` is seen too, with `interpose: true` in the plan; a queue
// needs the wrapper, since libdispatch's calls are not interposed.)

/// The job board's lock type.
typealias Lock = StressLock
/// The job board's condition type.
typealias Condition = StressCondition
/// The job board's queue type.
typealias Queue = StressQueue
