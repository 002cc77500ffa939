import CStressSupport
import Foundation

/// Where a result was measured: enough to tell two machines or builds apart.
package struct EnvironmentInfo: Sendable, Codable, Equatable {
    /// Operating system and kernel, e.g. "Debian GNU/Linux 12 (bookworm), Linux 6.1.0".
    public var os: String
    /// CPU model name, or "unavailable".
    public var cpu: String
    /// Online logical cores.
    public var cores: Int
    /// The cores this process may run on (its affinity mask), or nil where the
    /// platform cannot say. Fewer than ``cores`` when the run was pinned
    /// (`taskset`, a cpuset): the figures then come from that many cores, and
    /// on Linux Swift's cooperative pool is only that wide (one core: actor
    /// code never runs in parallel). A CPU-time quota (`docker --cpus`) limits
    /// how long, not where, and is in neither count: see ``cpuQuota``. Absent
    /// from records written before it existed.
    public var usableCores: Int?
    /// The CPU-time quota of the process's control group (Linux): the tightest
    /// on its group or any group above it that the process can see (see
    /// ``CPUQuota``), or nil where that could not be read. In JSON
    /// `cpuQuotaCores`: a number of cores' worth, `null` for no quota, absent
    /// for unknown (and in records written before it existed).
    public var cpuQuota: CPUQuota?
    /// The Swift compiler the binary was built with.
    public var swiftVersion: String
    /// `debug` or `release`.
    public var buildConfiguration: String
    /// stressbench's own version.
    public var toolVersion: String
    /// The sanitizer the binary was built with: `thread` for ThreadSanitizer
    /// (its data races are then violations), nil for none. Its figures are
    /// not comparable with a plain build's: TSan slows every memory access.
    public var sanitizer: String?

    /// The environment of this process (computed once).
    public static let current = EnvironmentInfo(
        os: Self.operatingSystem(),
        cpu: Self.cpuModel(),
        // The online count from sysconf, not Foundation's activeProcessorCount:
        // that one ignores the affinity mask but (in some versions) reads a
        // cgroup CPU quota, which would make it neither count.
        cores: Self.onlineCoreCount(),
        usableCores: Self.usableCoreCount(),
        cpuQuota: ControlGroupCPU.current.quota,
        swiftVersion: Self.compilerVersion,
        buildConfiguration: Self.configuration,
        toolVersion: StressKitVersion.current,
        sanitizer: ThreadSanitizer.isActive ? ThreadSanitizer.name : nil
    )

    /// An environment as described.
    public init(os: String, cpu: String, cores: Int, usableCores: Int?, cpuQuota: CPUQuota? = nil,
                swiftVersion: String, buildConfiguration: String, toolVersion: String, sanitizer: String? = nil) {
        self.os = os
        self.cpu = cpu
        self.cores = cores
        self.usableCores = usableCores
        self.cpuQuota = cpuQuota
        self.swiftVersion = swiftVersion
        self.buildConfiguration = buildConfiguration
        self.toolVersion = toolVersion
        self.sanitizer = sanitizer
    }

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

    /// A warning for a run that includes `taskStrategies` (strategies whose
    /// workers are tasks on Swift's cooperative pool, in trials of more than
    /// one worker) in a process that may use one core; nil when there is
    /// nothing to warn about. On Linux the pool is as wide as the cores the
    /// process may use, so with one core the workers take turns on one
    /// thread: races that need two of them running at the same moment (the
    /// actor lock-order bank's overlap) cannot happen, and throughput is one
    /// thread's whatever `threads` says.
    public func cooperativePoolWarning(taskStrategies: [String]) -> String? {
        guard usableCores == 1, !taskStrategies.isEmpty else { return nil }
        let only = cores > 1 ? "this process may run on 1 of \(cores) cores (its CPU affinity)" : "this machine has 1 core"
        return "warning: \(only), so Swift's cooperative pool has one thread: "
            + "under \(taskStrategies.joined(separator: ", ")) the workers take turns on it, never running at the same moment; "
            + "races that need two of them running at once cannot show, and throughput is one thread's"
    }

    /// One way two environments differ: what, and how each side has it.
    package struct Change: Equatable {
        package var what: String
        package var before: String
        package var after: String
    }

    /// What differs between `baseline`'s environment and this one, in the
    /// terms that move figures: the CPU model, the cores online and usable,
    /// the CPU quota, the build configuration, the compiler and the sanitizer. One phrase
    /// each ("build: release in the baseline, debug here"); empty when they
    /// agree. A count, quota or CPU model one side does not know is not called
    /// a difference. The OS line is left out: hosted CI runners change kernels
    /// often, and that alone is rarely what moved a figure.
    public func differences(from baseline: EnvironmentInfo) -> [String] {
        changes(from: baseline).map { "\($0.what): \($0.before) in the baseline, \($0.after) here" }
    }

    /// The differences of ``differences(from:)``, unworded.
    package func changes(from other: EnvironmentInfo) -> [Change] {
        var found: [Change] = []
        func differ<T: Equatable>(_ what: String, _ old: T?, _ new: T?, _ show: (T) -> String) {
            guard let old, let new, old != new else { return }
            found.append(Change(what: what, before: show(old), after: show(new)))
        }
        // "unavailable" is a placeholder, not a model: unknown, not different.
        let model = { (name: String) in name == "unavailable" ? nil : name }
        differ("CPU", model(other.cpu), model(cpu)) { $0 }
        differ("cores online", other.cores, cores) { "\($0)" }
        differ("cores usable by the process", other.usableCores, usableCores) { "\($0)" }
        differ("CPU quota", other.cpuQuota, cpuQuota) { $0.description }
        differ("build", other.buildConfiguration, buildConfiguration) { $0 }
        differ("Swift", other.swiftVersion, swiftVersion) { $0 }
        // Absent is a build without one, a real difference (TSan's own cost
        // dwarfs most regressions), so both sides are compared as words.
        differ("sanitizer", other.sanitizer ?? "none", sanitizer ?? "none") { $0 }
        return found
    }

    private static func onlineCoreCount() -> Int {
        let n = Int(stress_online_cpus())
        return n > 0 ? n : ProcessInfo.processInfo.activeProcessorCount
    }

    private static func usableCoreCount() -> Int? {
        let n = Int(stress_usable_cpus())
        return n > 0 ? n : nil
    }

    /// "2 cores", "2 cores (1 usable by this process)" when the process was
    /// pinned to fewer, "4 cores (CPU quota 1.5 cores)" when a quota limits it,
    /// or both.
    public var coresDescription: String {
        var limits: [String] = []
        if let usable = usableCores, usable < cores { limits.append("\(usable) usable by this process") }
        if let quota = cpuQuota, quota != .unlimited { limits.append("CPU quota \(quota.description)") }
        return limits.isEmpty ? "\(cores) cores" : "\(cores) cores (\(limits.joined(separator: ", ")))"
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

extension EnvironmentInfo {
    private enum CodingKeys: String, CodingKey {
        case os, cpu, cores, usableCores, cpuQuotaCores, swiftVersion, buildConfiguration, toolVersion, sanitizer
    }

    /// Decodes a record; `cpuQuotaCores` absent is unknown, `null` no quota.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        os = try c.decode(String.self, forKey: .os)
        cpu = try c.decode(String.self, forKey: .cpu)
        cores = try c.decode(Int.self, forKey: .cores)
        usableCores = try c.decodeIfPresent(Int.self, forKey: .usableCores)
        if !c.contains(.cpuQuotaCores) {
            cpuQuota = nil
        } else if let cores = try c.decodeIfPresent(Double.self, forKey: .cpuQuotaCores) {
            cpuQuota = .cores(cores)
        } else {
            cpuQuota = .unlimited
        }
        swiftVersion = try c.decode(String.self, forKey: .swiftVersion)
        buildConfiguration = try c.decode(String.self, forKey: .buildConfiguration)
        toolVersion = try c.decode(String.self, forKey: .toolVersion)
        sanitizer = try c.decodeIfPresent(String.self, forKey: .sanitizer)
    }

    /// Encodes a record; an unknown quota is left out, no quota is `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(os, forKey: .os)
        try c.encode(cpu, forKey: .cpu)
        try c.encode(cores, forKey: .cores)
        try c.encodeIfPresent(usableCores, forKey: .usableCores)
        switch cpuQuota {
        case nil: break
        case .unlimited?: try c.encodeNil(forKey: .cpuQuotaCores)
        case .cores(let n)?: try c.encode(n, forKey: .cpuQuotaCores)
        }
        try c.encode(swiftVersion, forKey: .swiftVersion)
        try c.encode(buildConfiguration, forKey: .buildConfiguration)
        try c.encode(toolVersion, forKey: .toolVersion)
        try c.encodeIfPresent(sanitizer, forKey: .sanitizer)
    }
}

/// The version of stressbench (the library and the tool share it).
package enum StressKitVersion {
    /// Semantic version of this build.
    public static let current = "0.1.0"
}
