import Foundation
import PackagePlugin

/// Builds `libStressInterpose.so` from Sources/CStressInterpose as a resource
/// of the target it is applied to.
///
/// Why a plugin: `swift run stressbench` builds only the executable and what
/// it links, never the package's other products, so a plan with
/// `interpose: true` found no interposer on a fresh clone. The interposer
/// must not be linked into stressbench either (it would put itself in front
/// of every lock call of the harness itself). Built here, it travels as a
/// resource of a target every stressbench executable links, a team's own
/// included, and sits beside the executable after any `swift build` or
/// `swift run`.
@main
struct InterposerBuilder: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let sources = context.package.directoryURL.appending(path: "Sources/CStressInterpose")
        let source = sources.appending(path: "interpose.c")
        let header = sources.appending(path: "include/CStressInterpose.h")
        let library = context.pluginWorkDirectoryURL.appending(path: "libStressInterpose.so")
        let clang = try context.tool(named: "clang")
        return [
            .buildCommand(
                displayName: "Building libStressInterpose.so",
                executable: clang.url,
                arguments: [
                    "-shared", "-fPIC", "-O2", "-std=gnu11",
                    "-I", sources.appending(path: "include").path,
                    source.path, "-ldl", "-o", library.path,
                ],
                inputFiles: [source, header],
                outputFiles: [library]
            )
        ]
    }
}
