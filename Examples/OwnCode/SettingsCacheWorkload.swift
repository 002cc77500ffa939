import StressKit

/// The workload that tests ``SettingsCache``: every operation reads a random
/// section's settings and checks the value is the one loading gives. On x86-64
/// it always is (see ``SettingsCache``): free-running stress passes, and a
/// ThreadSanitizer build reports the race on the flag and the value.
public struct SettingsCacheWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "settings-cache",
        summary: "settings published with a plain flag: passes every check on x86-64, a data race ThreadSanitizer sees (Examples/OwnCode)",
        parameters: [
            .integer("sections", "how many sections load lazily (each a flag and a value)", default: 64, range: 1...1_000_000),
        ]
    )

    let sections: Int

    public init(parameters: WorkloadParameters) throws {
        sections = try parameters.integer("sections")
    }

    public func makeState(threads: Int) -> SettingsCache { SettingsCache(sections: sections) }

    public func operations() -> [StressOperation<SettingsCache>] {
        [
            StressOperation("read", weight: 1, steps: [
                .unguarded("read") { cache, frame in
                    let section = frame.random.next(below: sections)
                    let value = cache.value(of: section)
                    return value == SettingsCache.load(section) ? .next
                        : .violation("section \(section) read \(value), not \(SettingsCache.load(section))")
                },
            ]),
        ]
    }
}
