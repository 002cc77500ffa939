/// The plain, single-threaded truth about a thread-safe type: its state, and
/// what each operation does to it and returns. stressbench runs the real
/// type from several threads, records every call and result, and checks
/// that some sequential order of the calls, consistent with real time,
/// would have given the same results on this model (linearizability).
///
/// A model is a value: the checker copies it to try one order after
/// another, and compares states (`Hashable`) to skip orders it has seen.
///
/// ```swift
/// struct CounterModel: SequentialModel {
///     var value = 0
///     mutating func apply(_ op: CounterOp) -> Int {
///         switch op {
///         case .increment: value += 1; return value
///         case .read: return value
///         }
///     }
/// }
/// ```
public protocol SequentialModel: Hashable, Sendable {
    /// An operation with its arguments (`.put(key: "a", value: 1)`).
    associatedtype Operation: Sendable
    /// What an operation returns; `Void`-like operations return a constant.
    associatedtype Result: Equatable & Sendable

    /// Applies `operation` to the state and returns its result, as the real
    /// type would with no other thread running.
    ///
    /// - Parameter operation: The operation and its arguments.
    /// - Returns: What the operation returns.
    mutating func apply(_ operation: Operation) -> Result

    /// The part of the state `operation` touches, for a model whose state
    /// splits into independent parts (a key-value store's keys): the checker
    /// then checks each part's operations on their own, which is much
    /// faster, and correct because a history is linearizable when each part's
    /// is (P-compositionality). Nil, the default, when the state does not split.
    ///
    /// - Parameter operation: The operation.
    /// - Returns: The part's key, or nil.
    static func partition(of operation: Operation) -> AnyHashable?

    /// The state in one line, for reports ("count 3", "[1, 4]").
    var stateDescription: String { get }
}

extension SequentialModel {
    /// The default: the state does not split.
    ///
    /// - Parameter operation: The operation.
    /// - Returns: Nil.
    public static func partition(of operation: Operation) -> AnyHashable? { nil }

    /// The default: the model as Swift describes it.
    public var stateDescription: String { String(describing: self) }
}
