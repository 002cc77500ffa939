import CStressSupport

/// State that may only be touched on the main thread, or on one queue: the
/// development-build assertion ("this must only be called on the main
/// thread") made a check the harness counts.
///
/// Every access goes through ``value``. Inside a trial, an access from
/// elsewhere is a violation of the trial, naming where it came from (the
/// worker, its operation and step). Outside a trial, an access from elsewhere
/// fails an `assert` (debug builds) and is otherwise let through, as a
/// development-build assertion would.
public final class Confined<Value>: @unchecked Sendable {
    // @unchecked: the confinement it checks is what keeps `storage` safe.

    /// Where the state belongs.
    public enum Domain: Sendable {
        /// The main thread (the main queue, the main actor).
        case mainThread
        /// One queue: accesses from its blocks only.
        case queue(StressQueue)
    }

    private var storage: Value
    /// The only place the state may be touched from.
    public let domain: Domain
    private let name: String

    /// State named `name` (for messages), confined to `domain`.
    ///
    /// - Parameters:
    ///   - value: The state's first value.
    ///   - domain: The only place it may be touched from.
    ///   - name: What violation messages call it.
    public init(_ value: Value, to domain: Domain, name: String) {
        storage = value
        self.domain = domain
        self.name = name
    }

    /// The state; reading or writing it off its domain is a violation.
    public var value: Value {
        get {
            check()
            return storage
        }
        set {
            check()
            storage = newValue
        }
    }

    private var here: Bool {
        switch domain {
        case .mainThread: return stress_is_main_thread() != 0
        case .queue(let queue):
            // A task worker's thread is not the trial's (a task hops
            // threads), and the queue's blocks run there unseen: it cannot
            // tell, so it lets a task's access through rather than raise a
            // false alarm. Any other thread (a global queue's callback) is
            // checked.
            return queue.isCurrent || (!Participation.active && AmbientContext.inTask() != nil)
        }
    }

    private func check() {
        guard !here else { return }
        let place: String
        switch domain {
        case .mainThread: place = "the main thread"
        case .queue(let queue): place = "the queue '\(queue.label)'"
        }
        let where_ = stress_is_main_thread() != 0 ? "the main thread" : "another thread"
        if !reportViolation("confinement: \(name) was touched from \(where_), not from \(place)") {
            assert(false, "\(name) was touched from \(where_), not from \(place)")
        }
    }
}
