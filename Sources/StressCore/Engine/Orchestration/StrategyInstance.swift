/// A strategy made for one trial, in the form the engine drives.
package enum StrategyInstance: Sendable {
    /// Driven by OS threads.
    case blocking(any BlockingStrategy)
    /// Driven by tasks.
    case isolating(any IsolatingStrategy)

    /// The strategy's descriptor.
    public var descriptor: StrategyDescriptor {
        switch self {
        case .blocking(let s): return type(of: s).descriptor
        case .isolating(let s): return type(of: s).descriptor
        }
    }
}
