#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Swift symbol names made readable with the Swift runtime's own demangler
/// (the one `swift demangle` uses), in this process: no tool to find, no
/// process per frame.
enum SwiftDemangle {
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
