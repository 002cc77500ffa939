/// Several strategies in one: each resource guarded by a strategy of its own,
/// as real code guards its cache with a reader-writer queue and its
/// connection count with a semaphore.
///
/// A plan names one in its `strategies` list as a mapping:
///
/// ```yaml
/// strategies:
///   - semaphore
///   - {name: mixed, resources: [semaphore, rw-queue]}
/// ```
///
/// Resource `i` is guarded by `resources[i]`; resources past the end of the
/// list by its last entry. Each part is made as its own strategy would be
/// (with the workload's resource count) and only the resources it guards are
/// used. Parts must be blocking, synchronizing strategies whose resources are
/// independent: not an actor or a task strategy, not lock-free, not one
/// domain for everything (`main-queue`, `target-queue`), and not deferring
/// writes (`async-write-queue`).
package class PerResourceStrategy: BlockingStrategy, @unchecked Sendable {
    // @unchecked: immutable after init; the parts are Sendable strategies.

    /// The semantics the engine sees: the weakest common ground of any mix
    /// (not reentrant, reads may share, a lock-like primitive). The record
    /// names the plan's own name for the mix and its parts.
    public class var descriptor: StrategyDescriptor {
        StrategyDescriptor(name: "per-resource", summary: "a strategy per resource", reentrant: false,
                           sharedReads: true, hidden: true)
    }

    /// The parts, one per distinct strategy, and for each resource the index
    /// of the part that guards it.
    let parts: [any BlockingStrategy]
    let partOfResource: [Int]

    required public init(setup: StrategySetup) throws {
        throw PerResourceError("a per-resource strategy is made from its parts, not from a setup alone")
    }

    init(parts: [any BlockingStrategy], partOfResource: [Int]) {
        self.parts = parts
        self.partOfResource = partOfResource
    }

    @inline(__always)
    final func part(_ resource: Int) -> any BlockingStrategy {
        parts[partOfResource[Swift.min(resource, partOfResource.count - 1)]]
    }

    public final func read(_ resource: Int, _ body: () -> Void) { part(resource).read(resource, body) }
    public final func write(_ resource: Int, _ body: () -> Void) { part(resource).write(resource, body) }
    public final func submitWrite(_ resource: Int, _ body: @escaping @Sendable () -> Void) {
        part(resource).submitWrite(resource, body)
    }
    public final func quiesce() { for p in parts { p.quiesce() } }

    /// Why a strategy cannot be a part of a per-resource mix, or nil when it can.
    public static func unsuitability(of part: StrategyDescriptor) -> String? {
        if part.execution == .tasks { return "it runs tasks (an actor strategy); a mix is of blocking strategies" }
        if part.lockFree { return "it is lock-free, with no critical sections to mix" }
        if part.singleDomain { return "it guards every resource with one domain" }
        if part.asynchronousWrites { return "it defers writes, which a mix cannot drain per resource" }
        if !part.synchronizes { return "it does not synchronize" }
        return nil
    }

    /// Makes the mix for `setup` from `entries`, resource `i` guarded by
    /// `entries[min(i, count - 1)]`. Holds across steps (``HoldingStrategy``)
    /// when every part does.
    static func make(_ entries: [StrategyEntry], setup: StrategySetup) throws -> PerResourceStrategy {
        var names: [String] = [], parts: [any BlockingStrategy] = [], partOfResource: [Int] = []
        for entry in entries {
            if let i = names.firstIndex(of: entry.descriptor.name) {
                partOfResource.append(i)
                continue
            }
            if let why = unsuitability(of: entry.descriptor) {
                throw PerResourceError("strategy '\(entry.descriptor.name)' cannot guard one resource of a mix: \(why)")
            }
            guard case .blocking(let part) = try entry.make(setup) else {
                throw PerResourceError("strategy '\(entry.descriptor.name)' is not a blocking strategy")
            }
            names.append(entry.descriptor.name)
            parts.append(part)
            partOfResource.append(parts.count - 1)
        }
        guard !parts.isEmpty else { throw PerResourceError("a per-resource strategy needs at least one part") }
        if parts.allSatisfy({ $0 is any HoldingStrategy }) {
            return HoldingPerResourceStrategy(parts: parts, partOfResource: partOfResource)
        }
        return PerResourceStrategy(parts: parts, partOfResource: partOfResource)
    }
}

/// A per-resource mix whose parts all hold a resource across steps.
final class HoldingPerResourceStrategy: PerResourceStrategy, HoldingStrategy, @unchecked Sendable {
    // @unchecked: see PerResourceStrategy.
    func acquire(_ resource: Int) { (part(resource) as! any HoldingStrategy).acquire(resource) }
    func release(_ resource: Int) { (part(resource) as! any HoldingStrategy).release(resource) }
}

/// Why a per-resource mix cannot be made.
struct PerResourceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension StrategyEntry {
    /// The entry of a per-resource mix named `name` of `parts` (in resource order).
    package init(perResource name: String, parts: [StrategyEntry]) {
        let summary = "per resource: " + parts.map(\.descriptor.name).joined(separator: ", ")
        let base = PerResourceStrategy.descriptor
        self.init(descriptor: StrategyDescriptor(name: name, summary: summary, reentrant: false, sharedReads: base.sharedReads, hidden: true),
                  canHoldAcrossSteps: parts.allSatisfy(\.canHoldAcrossSteps),
                  make: { setup in .blocking(try PerResourceStrategy.make(parts, setup: setup)) })
    }
}
