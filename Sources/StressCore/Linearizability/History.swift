/// One operation of a recorded concurrent history: who called what, what it
/// returned, and when, in the order of a logical clock that every worker
/// reads at the call and again at the return.
///
/// Real-time order: `a` precedes `b` when `a.returned < b.called` (a
/// returned before b was called); overlapping operations may be
/// linearized either way.
package struct HistoryOperation<Operation: Sendable, Result: Sendable>: Sendable {
    /// The worker that called it (-1: the sequential parts before and after).
    package var worker: Int
    /// The operation and its arguments.
    package var operation: Operation
    /// What it returned; nil for an operation that never returned (its
    /// worker stopped or crashed): the checker may linearize it anywhere
    /// after its call, or leave it out.
    package var result: Result?
    /// The clock's reading at the call.
    package var called: UInt64
    /// The clock's reading at the return (`UInt64.max` when pending).
    package var returned: UInt64

    package init(worker: Int, operation: Operation, result: Result?, called: UInt64, returned: UInt64) {
        self.worker = worker
        self.operation = operation
        self.result = result
        self.called = called
        self.returned = returned
    }
}
