import Foundation

/// Where a result was measured: enough to tell two machines or builds apart.
public struct EnvironmentInfo: Sendable, Codable, Equatable {
    /// Operating system and kernel, e.g. "Debian GNU/Linux 12 (bookworm), Linux 6.1.0".
    public var os: String
    /// CPU model name, or "unavailable".
    public var cpu: String
    /// Online logical cores.
    public var cores: Int
    /// The Swift compiler the binary was built with.
    public var swiftVersion: String
    /// `debug` or `release`.
    public var buildConfiguration: String
    /// stressbench's own version.
    public var toolVersion: String

    /// The environment of this process (computed once).
    public static let current = EnvironmentInfo(
        os: Self.operatingSystem(),
        cpu: Self.cpuModel(),
        cores: ProcessInfo.processInfo.activeProcessorCount,
        swiftVersion: Self.compilerVersion,
        buildConfiguration: Self.configuration,
        toolVersion: StressKitVersion.current
    )

    private static var configuration: String {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }

    private static var compilerVersion: String {
        #if compiler(>=6.5)
        return "6.5 or later"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }

    private static func operatingSystem() -> String {
        var name = "unavailable"
        if let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) {
            for line in release.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
                name = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        var uts = utsname()
        if uname(&uts) == 0 {
            let field = { (tuple: Any) -> String in
                Mirror(reflecting: tuple).children.compactMap { $0.value as? CChar }
                    .prefix { $0 != 0 }.map { String(UnicodeScalar(UInt8(bitPattern: $0))) }.joined()
            }
            let kernel = "\(field(uts.sysname)) \(field(uts.release)) \(field(uts.machine))"
            return name == "unavailable" ? kernel : "\(name), \(kernel)"
        }
        return name
    }

    private static func cpuModel() -> String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unavailable" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unavailable"
    }
}

/// The version of stressbench (the library and the tool share it).
public enum StressKitVersion {
    /// Semantic version of this build.
    public static let current = "0.1.0"
}
