import StressKit

// The one change a team makes to test its own code: the type of its
// primitives. In the app these would be Foundation's and Dispatch's:
//
//     #if STRESS_TESTS
//     typealias Lock = StressLock
//     typealias Condition = StressCondition
//     typealias Queue = StressQueue
//     typealias Semaphore = StressSemaphore
//     typealias Mutex = StressMutex
//     #else
//     typealias Lock = NSLock
//     typealias Condition = NSCondition
//     typealias Queue = DispatchQueue
//     typealias Semaphore = DispatchSemaphore
//     typealias Mutex = Synchronization.Mutex
//     #endif
//
// The image store also names its semaphores, mutex and once-token for stall
// reports (`name:`), which Dispatch's and Synchronization's types do not
// take: an app build adds initializers that drop the name, such as
//
//     extension DispatchSemaphore {
//         convenience init(value: Int, name: String) { self.init(value: value) }
//     }
//
// and its `Once` is the once-token it already has (a flag under a lock, a
// lazy `static let`) with a `run(_:)` of the same shape.
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
/// The image store's semaphore type (`DispatchSemaphore` in the app).
typealias Semaphore = StressSemaphore
/// The image store's mutex type (`Synchronization.Mutex` in the app).
typealias Mutex = StressMutex
/// The image store's once-token (in the app, `dispatch_once`'s replacement:
/// a lazy `static let`, or a flag under a lock).
typealias Once = StressOnce
