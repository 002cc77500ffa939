import Foundation

/// Where this build's copy of `libStressInterpose.so` is.
///
/// The InterposerBuilder plugin compiles it as this target's resource, so it
/// is there after any build of an executable that links StressKit, `swift run`
/// included, a team's own `stressbench` too.
package enum InterposerPayload {
    /// The resource bundle's name ends with this; it starts with the identity
    /// of the package that holds this target, which is the name of the folder
    /// of a checkout used as a local dependency, so it is not fixed.
    package static let bundleSuffix = "_InterposerPayload.resources"

    /// The library in the resource bundle SwiftPM put in `directory` (the
    /// executable's), or nil when there is none: a binary copied out of its
    /// build folder without its `*.resources` directories. (Not
    /// `Bundle.module`, whose accessor traps when the bundle is missing.)
    package static func libraryPath(inDirectory directory: String) -> String? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        for entry in entries.sorted() where entry.hasSuffix(bundleSuffix) {
            let path = directory + "/" + entry + "/libStressInterpose.so"
            if FileManager.default.isReadableFile(atPath: path) { return path }
        }
        return nil
    }
}
