import Foundation

/// Where the pthread interposer (`libStressInterpose.so`, the package's
/// `StressInterpose` product) is, for trials of a plan that says
/// `interpose: true`: the trial process runs with it preloaded, so the code
/// under test's own `NSLock`, `NSRecursiveLock`, `NSCondition` and pthread
/// mutex, condition and rwlock calls publish what each thread holds and waits
/// for, and have fuzz points, without a change to that code.
enum Interposer {
    /// The library's file name.
    static let fileName = "libStressInterpose.so"

    /// The library in the directory of `executable` (SwiftPM puts products of
    /// one build side by side), or nil when it is not there.
    static func libraryPath(besides executable: String) -> String? {
        let path = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(fileName).path
        return FileManager.default.isReadableFile(atPath: path) ? path : nil
    }

    /// What to say when the library is missing.
    static func missingMessage(besides executable: String) -> String {
        let directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent().path
        return "interpose: true needs \(fileName) next to the executable (\(directory)); "
            + "build it with: swift build --product StressInterpose (add -c release for a release build)"
    }
}
