import CStressSupport
import Dispatch

/// `main-queue`: every access through `DispatchQueue.main.sync` from the
/// workers: the "everything on the main thread" model (Siesta, and much UI
/// code, confine all shared state to the main thread and hop there).
///
/// The trial process's main thread serves the main queue (it does nothing
/// else; coordination is on another thread), so every section of every
/// resource runs there, one at a time, in submission order. While it runs one
/// it holds the main queue, which the watchdog sees: a worker that `sync`s to
/// main while main waits for that worker is a `deadlock` with its cycle. Not
/// reentrant: a `sync` onto main from main (a nested access) traps, as
/// libdispatch does. Like `serial-queue` it goes through the Swift overlay's
/// `sync`, which copies its closure into a heap block on every call on Linux
/// (80 bytes): the model is code that writes `DispatchQueue.main.sync { … }`.
package final class MainQueueStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "main-queue",
        summary: "every access via DispatchQueue.main.sync (the 'everything on the main thread' model)",
        reentrant: false, sharedReads: false, primitive: .mainQueue, singleDomain: true
    )

    /// The main queue, held as a plain `DispatchQueue`: the compiler treats a
    /// block given to `DispatchQueue.main` by name as main-actor isolated, and
    /// the step's body is not (it runs on main, while its worker waits).
    private let main: DispatchQueue

    public init(setup: StrategySetup) throws {
        main = .main
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        main.sync {
            stress_hold(WaitKey.mainQueue)
            body()
            stress_unhold(WaitKey.mainQueue)
        }
    }
}
