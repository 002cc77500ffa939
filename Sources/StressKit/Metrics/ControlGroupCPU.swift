import Foundation

/// A limit on the CPU time a process's control group may use: `docker --cpus`,
/// a Kubernetes CPU limit, systemd's `CPUQuota=`. It limits how long, not
/// where: a process with a quota of 1.5 cores may still run on every core, but
/// once its group has used 1.5 cores' worth of a period (100 ms by default) the
/// kernel stops all of the group's threads until the next one. Throughput then
/// follows the quota rather than the code, and latency gets tails of tens of
/// milliseconds.
public enum CPUQuota: Sendable, Equatable {
    /// No quota limits the process's group or any group above it.
    case unlimited
    /// The tightest quota on the process's group and the groups above it, in
    /// cores' worth of CPU time (quota divided by period).
    case cores(Double)

    /// "1.5 cores", or "none".
    public var description: String {
        switch self {
        case .unlimited: return "none"
        case .cores(let n): return "\(Formatting.digits(n)) core" + (n == 1 ? "" : "s")
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
    /// One group's directory and the version of its hierarchy.
    struct Group: Equatable {
        var directory: String
        var version: Int
    }

    /// The process's group in each hierarchy that has a CPU controller,
    /// then each group above it up to the mount's root: nearest first.
    var groups: [Group]

    /// The process's groups, or nil where there are none to read (not Linux,
    /// no `/proc`, no CPU controller mounted).
    static func locate(read: (String) -> String?) -> ControlGroupCPU? {
        guard let mounts = read("/proc/self/mountinfo"), let membership = read("/proc/self/cgroup") else { return nil }
        var groups: [Group] = []
        for mount in mounts.split(separator: "\n").compactMap(Mount.init) {
            let version: Int
            let path: Substring?
            if mount.type == "cgroup2" {
                version = 2
                path = membership.split(separator: "\n").first { $0.hasPrefix("0::") }.map { $0.dropFirst(3) }
            } else if mount.type == "cgroup", mount.superOptions.contains("cpu") {
                version = 1
                path = membership.split(separator: "\n").lazy.compactMap { line -> Substring? in
                    let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                    guard fields.count == 3, fields[1].split(separator: ",").contains("cpu") else { return nil }
                    return fields[2]
                }.first
            } else {
                continue
            }
            guard let path else { continue }
            groups += chain(from: String(path), in: mount).map { Group(directory: $0, version: version) }
        }
        return groups.isEmpty ? nil : ControlGroupCPU(groups: groups)
    }

    /// The directories of the group at `path` (as `/proc/self/cgroup` names
    /// it) and of every group above it that `mount` shows, nearest first.
    private static func chain(from path: String, in mount: Mount) -> [String] {
        // The mount shows the hierarchy from `mount.root` down; a group
        // outside that (it happens across namespaces) can only be read at the
        // mount point itself.
        let root = mount.root == "/" ? "" : mount.root
        guard path == root || path.hasPrefix(root + "/") || root.isEmpty else { return [mount.point] }
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

    /// The tightest quota on the process's groups.
    func find(read: (String) -> String?) -> Finding {
        var finding = Finding.unreadable
        for group in groups {
            switch Self.limit(of: group, read: read) {
            case .unreadable:
                continue
            case .none:
                if finding == .unreadable { finding = .unlimited }
            case .quota(let quota, let period):
                let cores = Double(quota) / Double(period)
                if case .limited(_, let tightest) = finding, tightest <= cores { continue }
                finding = .limited(group: group, cores: cores)
            }
        }
        return finding
    }

    /// One group's own setting.
    private enum GroupLimit {
        case unreadable
        case none
        /// Microseconds of CPU time per period of microseconds.
        case quota(Int, period: Int)
    }

    /// A group's quota. A version 2 group without the CPU controller has no
    /// `cpu.max`: no quota can apply there.
    private static func limit(of group: Group, read: (String) -> String?) -> GroupLimit {
        if group.version == 2 {
            guard let text = read(group.directory + "/cpu.max") else {
                return read(group.directory + "/cgroup.controllers") != nil ? .none : .unreadable
            }
            let fields = text.split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, let period = Int(fields[1]), period > 0 else { return .unreadable }
            if fields[0] == "max" { return .none }
            guard let quota = Int(fields[0]) else { return .unreadable }
            return .quota(quota, period: period)
        }
        func number(_ file: String) -> Int? {
            read(group.directory + "/" + file).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        guard let quota = number("cpu.cfs_quota_us"), let period = number("cpu.cfs_period_us"), period > 0 else {
            return .unreadable
        }
        return quota < 0 ? .none : .quota(quota, period: period)
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
