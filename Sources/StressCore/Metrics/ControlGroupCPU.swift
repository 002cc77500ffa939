import Foundation

/// A limit on the CPU time a process's control group may use: `docker --cpus`,
/// a Kubernetes CPU limit, systemd's `CPUQuota=`. It limits how long, not
/// where: a process with a quota of 1.5 cores may still run on every core, but
/// once its group has used 1.5 cores' worth of a period (100 ms by default) the
/// kernel stops all of the group's threads until the next one. Throughput then
/// follows the quota rather than the code, and latency gets tails of tens of
/// milliseconds.
///
/// A process inside a control-group namespace (most containers) sees only its
/// own part of the hierarchy: a quota set above that, out of its sight, is not
/// found.
package enum CPUQuota: Sendable, Equatable, CustomStringConvertible {
    /// No quota limits the process's group or any group above it that the
    /// process can see.
    case unlimited
    /// The tightest quota found on the process's group and the groups above
    /// it, in cores' worth of CPU time (quota divided by period).
    case cores(Double)

    /// "1.5 cores", "1 core", "0.125 cores", or "none".
    public var description: String {
        switch self {
        case .unlimited:
            return "none"
        case .cores(let n):
            // Up to three decimals (a quota is whole microseconds of a period,
            // so 0.125 is as likely as 0.5), without trailing zeros.
            var text = n >= 0.001 ? String(format: "%.3f", n) : String(format: "%.2g", n)
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            return text + (text == "1" ? " core" : " cores")
        }
    }
}

/// How often a control group was stopped by its CPU quota: the kernel's own
/// counters (`cpu.stat`), which only grow.
struct ThrottleCounters: Equatable {
    /// Scheduling periods in which the group ran.
    var periods: Int
    /// Of those, the periods in which it ran out of quota.
    var throttledPeriods: Int
    /// Time the group's threads were held back, in nanoseconds, summed over CPUs.
    var throttledNs: Int
}

/// Where the kernel keeps this process's CPU controller settings (Linux
/// control groups, version 1 or 2) and what they say.
///
/// Found from `/proc/self/mountinfo` (where each hierarchy is mounted, and
/// which part of it the mount shows: a container often sees only its own
/// subtree) and `/proc/self/cgroup` (the process's group in each hierarchy).
/// A quota can be set on any group above the process's own, so every group
/// from the process's up to the mount's root is read, and the tightest wins.
/// Files are read through `read` so that tests can hand in a made-up tree.
struct ControlGroupCPU: Equatable {
    /// The two kinds of hierarchy: version 1 has one per controller (or a few
    /// controllers together), version 2 one for all.
    enum Version: Equatable {
        case v1, v2
    }

    /// One group's directory and the version of its hierarchy.
    struct Group: Equatable {
        var directory: String
        var version: Version
    }

    /// For each mounted hierarchy that can have a CPU controller, the
    /// process's group, then each group above it up to the mount's root:
    /// nearest first. Empty where the process's group could not be placed in
    /// the mount (it lies outside what the mount shows): that hierarchy is
    /// unknown, not free of quotas.
    var chains: [[Group]]

    /// Every group of every chain.
    var groups: [Group] { chains.flatMap { $0 } }

    /// The process's groups, or nil where there are none to read (not Linux,
    /// no `/proc`, no CPU controller mounted).
    static func locate(read: (String) -> String?) -> ControlGroupCPU? {
        guard let mounts = read("/proc/self/mountinfo"), let membership = read("/proc/self/cgroup") else { return nil }
        var chains: [[Group]] = []
        for mount in mounts.split(separator: "\n").compactMap(Mount.init) {
            let version: Version
            let path: Substring?
            if mount.type == "cgroup2" {
                version = .v2
                path = membership.split(separator: "\n").first { $0.hasPrefix("0::") }.map { $0.dropFirst(3) }
            } else if mount.type == "cgroup", mount.superOptions.contains("cpu") {
                version = .v1
                path = membership.split(separator: "\n").lazy.compactMap { line -> Substring? in
                    let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                    guard fields.count == 3, fields[1].split(separator: ",").contains("cpu") else { return nil }
                    return fields[2]
                }.first
            } else {
                continue
            }
            let directories = path.map { chain(from: String($0), in: mount) } ?? []
            chains.append(directories.map { Group(directory: $0, version: version) })
        }
        return chains.isEmpty ? nil : ControlGroupCPU(chains: chains)
    }

    /// The directories of the group at `path` (as `/proc/self/cgroup` names
    /// it) and of every group above it that `mount` shows, nearest first;
    /// empty when the mount does not show that group.
    private static func chain(from path: String, in mount: Mount) -> [String] {
        // The mount shows the hierarchy from `mount.root` down. A group
        // outside that, or one named relative to a namespace it is not in
        // (`/../sibling`), is not in this mount at all: reading the mount
        // point instead would read another group.
        let root = mount.root == "/" ? "" : mount.root
        guard path.hasPrefix("/"), root.isEmpty || path == root || path.hasPrefix(root + "/"),
              !path.split(separator: "/").contains("..") else { return [] }
        var relative = String(path.dropFirst(root.count))
        var directories: [String] = []
        while true {
            directories.append(relative.isEmpty || relative == "/" ? mount.point : mount.point + relative)
            guard let slash = relative.lastIndex(of: "/"), !relative.isEmpty, relative != "/" else { break }
            relative = String(relative[..<slash])
        }
        return directories
    }

    /// What the process's groups say about a quota.
    enum Finding: Equatable {
        /// No group's settings could be read.
        case unreadable
        /// The settings were read and no group has a quota.
        case unlimited
        /// `group` has the tightest quota: `cores` cores' worth.
        case limited(group: Group, cores: Double)

        /// The quota as a result records it: nil when unreadable.
        var quota: CPUQuota? {
            switch self {
            case .unreadable: return nil
            case .unlimited: return .unlimited
            case .limited(_, let cores): return .cores(cores)
            }
        }
    }

    /// The tightest quota on the process's groups. "No quota" only when every
    /// group of every chain was read: one group that could not be read (or a
    /// chain that could not be placed) might hold one.
    func find(read: (String) -> String?) -> Finding {
        var tightest: (group: Group, cores: Double)?
        var complete = !chains.contains { $0.isEmpty }
        for group in groups {
            switch Self.limit(of: group, read: read) {
            case .unreadable:
                complete = false
            case .noQuota:
                break
            case .quota(let quota, let period):
                let cores = Double(quota) / Double(period)
                if tightest.map({ cores < $0.cores }) ?? true { tightest = (group, cores) }
            }
        }
        if let tightest { return .limited(group: tightest.group, cores: tightest.cores) }
        return complete ? .unlimited : .unreadable
    }

    /// One group's own setting.
    private enum GroupLimit {
        case unreadable
        case noQuota
        /// Microseconds of CPU time per period of microseconds.
        case quota(Int, period: Int)
    }

    /// A group's quota. A version 2 group without the CPU controller has no
    /// `cpu.max`: no quota can apply there.
    private static func limit(of group: Group, read: (String) -> String?) -> GroupLimit {
        if group.version == .v2 {
            guard let text = read(group.directory + "/cpu.max") else {
                return read(group.directory + "/cgroup.controllers") != nil ? .noQuota : .unreadable
            }
            let fields = text.split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, let period = Int(fields[1]), period > 0 else { return .unreadable }
            if fields[0] == "max" { return .noQuota }
            guard let quota = Int(fields[0]) else { return .unreadable }
            return .quota(quota, period: period)
        }
        func number(_ file: String) -> Int? {
            read(group.directory + "/" + file).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        guard let quota = number("cpu.cfs_quota_us"), let period = number("cpu.cfs_period_us"), period > 0 else {
            return .unreadable
        }
        return quota < 0 ? .noQuota : .quota(quota, period: period)
    }

    /// How long `group` has been throttled so far (`cpu.stat`), or nil when
    /// the file cannot be read or does not say.
    static func throttling(of group: Group, read: (String) -> String?) -> ThrottleCounters? {
        guard let text = read(group.directory + "/cpu.stat") else { return nil }
        var values: [Substring: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = Int(fields[1]) { values[fields[0]] = value }
        }
        guard let periods = values["nr_periods"], let throttled = values["nr_throttled"] else { return nil }
        // Version 2 counts microseconds, version 1 nanoseconds.
        guard let ns = values["throttled_usec"].map({ $0 * 1000 }) ?? values["throttled_time"] else { return nil }
        return ThrottleCounters(periods: periods, throttledPeriods: throttled, throttledNs: ns)
    }

    /// Reads a file whole, or nil.
    static func readFile(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// What this process's groups say, found once (a process does not move
    /// between groups during a run).
    static let current: Finding = locate(read: readFile)?.find(read: readFile) ?? .unreadable

    /// The throttling counters of the group whose quota limits this process,
    /// now; nil when no quota applies (nothing can throttle) or they cannot
    /// be read.
    static func currentThrottling() -> ThrottleCounters? {
        guard case .limited(let group, _) = current else { return nil }
        return throttling(of: group, read: readFile)
    }
}

/// One line of `/proc/self/mountinfo`: `36 35 98:0 /root /point opts - type source superopts`.
private struct Mount {
    var root: String
    var point: String
    var type: Substring
    var superOptions: [Substring]

    init?(_ line: Substring) {
        let halves = line.components(separatedBy: " - ")
        guard halves.count == 2 else { return nil }
        let front = halves[0].split(separator: " ")
        let back = halves[1].split(separator: " ")
        guard front.count >= 5, back.count >= 3 else { return nil }
        root = Self.unescape(front[3])
        point = Self.unescape(front[4])
        type = back[0]
        superOptions = back[2].split(separator: ",")
    }

    /// The kernel writes a space, tab, newline or backslash in a path as a
    /// three-digit octal escape (`\040`).
    private static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        var i = field.utf8.startIndex
        let utf8 = field.utf8
        while i != utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: "\\"), let end = utf8.index(i, offsetBy: 4, limitedBy: utf8.endIndex),
               let code = UInt8(String(decoding: utf8[utf8.index(after: i)..<end], as: UTF8.self), radix: 8) {
                bytes.append(code)
                i = end
            } else {
                bytes.append(b)
                i = utf8.index(after: i)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
