import Yams
import StressCore

extension PlanLoader {
    /// The plan's `sanitizer` key: `thread` is the only sanitizer whose
    /// reports become violations. A plan that says it is meant for a
    /// ThreadSanitizer build, and is loaded by a binary without it, would
    /// pass for want of anything to see its races: refused, with the build
    /// command.
    func parseSanitizer(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> String? {
        guard let word = r.string(node, path) else { return nil }
        guard word == ThreadSanitizer.name else {
            r.fail(path, node, "expected thread (ThreadSanitizer, the one sanitizer whose reports become violations), found '\(word.clipped)'")
            return nil
        }
        guard threadSanitizerBuilt else {
            r.fail(path, node, "this plan needs a ThreadSanitizer build, and this binary was built without it; "
                   + "build one with `\(ThreadSanitizer.buildCommand)` and run it (.build/release/stressbench), "
                   + "or leave the key out to run without data-race detection")
            return nil
        }
        return word
    }
}
