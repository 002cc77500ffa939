/// Settings loaded once per section and published with a plain flag: the
/// double-checked initialization written the way that looks right and is
/// not. A reader that sees `loaded` then reads `value`; the loader writes
/// `value` then sets `loaded`. Nothing orders the two: on x86-64 the
/// processor keeps stores in order, so a reader never sees `loaded` before
/// the value, and every check passes. ARM (every Apple device) may make the
/// flag visible first, and the optimizer may reorder the two stores on any
/// processor: a reader then uses a value that is not there yet. No invariant
/// catches it on this machine; ThreadSanitizer sees the unordered accesses
/// themselves (docs/data-races.md).
public final class SettingsCache: @unchecked Sendable {
    // @unchecked: the missing synchronization is what the example is about.

    /// One section's settings: loaded at most once (in intent), then read.
    final class Section: @unchecked Sendable {
        // @unchecked: `loaded` is read and written with no synchronization, on purpose.
        var loaded = false
        var value = 0
    }

    private let sections: [Section]

    /// A cache of `count` sections, none loaded.
    public init(sections count: Int) {
        sections = (0..<count).map { _ in Section() }
    }

    /// The value of `section`, loading it first if nobody has: the flag is
    /// checked, the value stored, then the flag set, all without a lock.
    public func value(of section: Int) -> Int {
        let s = sections[section]
        if !s.loaded {
            s.value = Self.load(section)
            s.loaded = true
        }
        return s.value
    }

    /// What loading `section` gives (never 0, so a value read before it was
    /// stored shows as wrong).
    public static func load(_ section: Int) -> Int { section &* 7 &+ 1 }
}
