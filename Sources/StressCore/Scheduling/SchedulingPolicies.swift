import Synchronization

/// The scheduling policies this process knows, by name.
///
/// Trial settings carry a policy's name (``FuzzSettings/profile``), not the
/// policy, so that they stay plain data that a child process can decode; the
/// engine turns the name back into the policy here. The table starts with
/// the built-in policies and grows with ``StressRegistry/register(policy:)``.
package enum SchedulingPolicies {
    private static let table = Mutex<[any SchedulingPolicy]>(StressRegistry.builtInPolicies)

    /// Adds `policy`, or replaces the one of the same name where it stands
    /// (registering the built-ins again changes nothing).
    package static func register(_ policy: any SchedulingPolicy) {
        table.withLock { policies in
            if let i = policies.firstIndex(where: { $0.name == policy.name }) {
                policies[i] = policy
            } else {
                policies.append(policy)
            }
        }
    }

    /// Removes the policy called `name` (a test's own, once the test is
    /// done: the table outlives it). The built-ins stay whatever the name.
    package static func unregister(_ name: String) {
        guard !StressRegistry.builtInPolicies.contains(where: { $0.name == name }) else { return }
        table.withLock { $0.removeAll { $0.name == name } }
    }

    /// Every known policy's name, built-ins first in their documented order.
    static var names: [String] { table.withLock { $0.map(\.name) } }

    /// The policy called `name`, or nil when none is registered under it.
    static func named(_ name: String) -> (any SchedulingPolicy)? {
        table.withLock { $0.first { $0.name == name } }
    }

    /// The policy for `profile`. An unknown name (settings built in code for
    /// a policy this process never registered: plans are checked when they
    /// load) schedules as `off` does, first come first served.
    package static func policy(for profile: FuzzProfile) -> any SchedulingPolicy {
        named(profile.rawValue) ?? OffPolicy()
    }
}

extension StressRegistry {
    /// Makes `policy` available to plans, `--fuzz` and ``StressTest`` under
    /// its name. Policies are known process-wide by name (the trial settings
    /// name them), so this also reaches trials run through other registries.
    mutating func register(policy: any SchedulingPolicy) {
        SchedulingPolicies.register(policy)
    }
}
