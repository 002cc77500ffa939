import Foundation

/// Swift symbol names made readable. Reports are demangled with the
/// toolchain's `swift-demangle --simplified` when it is on the `PATH` (one
/// process per trial that reported anything: `CounterWorkload.Add.run(_:_:)`),
/// and a name it left mangled, or every name when it is missing, with the
/// Swift runtime's own demangler in this process (the full form, types and
/// all: `StressCore.CounterWorkload.Add.run(StressCore.CounterWorkload.State, …) -> …`).
enum SwiftDemangle {
    /// The toolchain's demangler, or nil when `PATH` has none.
    static let tool: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/swift-demangle" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The text of the file at `path` with every mangled name in it
    /// simplified by ``tool``; nil when there is no tool or it failed.
    static func simplified(file path: String) -> String? {
        guard let tool, let input = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? input.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--simplified"]
        process.standardInput = input
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `name` demangled when it is a mangled Swift symbol (`$s…`, `_$s…`),
    /// else as it is.
    static func readable(_ name: String) -> String {
        guard name.hasPrefix("$s") || name.hasPrefix("_$s") || name.hasPrefix("$S") || name.hasPrefix("_T0") else { return name }
        guard let demangled = name.withCString({ swift_demangle($0, strlen($0), nil, nil, 0) }) else { return name }
        defer { free(demangled) }
        return String(cString: demangled)
    }
}

/// The runtime's demangler (exported by libswiftCore on every platform):
/// a `malloc`ed C string, or nil when `mangledName` is not a Swift symbol.
@_silgen_name("swift_demangle")
private func swift_demangle(
    _ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: Int,
    _ outputBuffer: UnsafeMutablePointer<CChar>?, _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?
