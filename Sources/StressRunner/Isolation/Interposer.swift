import Foundation
import InterposerPayload
import StressCore

/// Where the pthread interposer (`libStressInterpose.so`) is, for trials of a
/// plan that says `interpose: true`: the trial process runs with it
/// preloaded, so the code under test's own `NSLock`, `NSRecursiveLock`,
/// `NSCondition` and pthread mutex, condition and rwlock calls publish what
/// each thread holds and waits for, and have fuzz points, without a change to
/// that code.
enum Interposer {
    /// The library's file name.
    static let fileName = "libStressInterpose.so"

    /// The library for trials of `executable`, or nil when there is none.
    ///
    /// Looked for first as the resource every build of an executable that
    /// links StressKit carries (`swift run` and a team's own package
    /// included), then as the package's `StressInterpose` product beside the
    /// executable (`swift build` puts products of one build side by side).
    static func libraryPath(besides executable: String) -> String? {
        let directory = directory(of: executable)
        if let bundled = InterposerPayload.libraryPath(inDirectory: directory) { return bundled }
        let path = directory + "/" + fileName
        return FileManager.default.isReadableFile(atPath: path) ? path : nil
    }

    /// What to say when the library is missing: where it was looked for and
    /// the one command that puts it there.
    static func missingMessage(besides executable: String) -> String {
        "interpose: true needs \(fileName), and neither the executable's resource bundle "
            + "(*\(InterposerPayload.bundleSuffix)) nor its directory (\(directory(of: executable))) has it: "
            + "a binary copied out of its build folder leaves its resources behind. Build the library into that "
            + "folder with: swift build --product StressInterpose (add -c release for a release build)"
    }

    private static func directory(of executable: String) -> String {
        URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent().path
    }
}
