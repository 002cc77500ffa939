import Yams
import StressCore

/// Parsing of the keys that say how trials run (as opposed to what they run):
/// `load`, `allocator`, `timing`, `fuzz`.
extension PlanLoader {
    /// `load: closed`, or `load: { mode: paced, rate: 200k | 50%, arrivals: fixed | poisson }`.
    func parseLoad(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> LoadSettings? {
        if case .scalar(let s) = node {
            if s.string == "closed" { return .closed }
            r.fail(path, node, "expected 'closed' or a mapping { mode: paced, rate: 200k, arrivals: poisson }")
            return nil
        }
        guard let entries = r.mapping(node, path, allowed: ["mode", "rate", "arrivals"]) else { return nil }
        var load = LoadSettings.closed
        for (key, value) in entries {
            let here = path.appending(key)
            switch key {
            case "mode":
                guard let word = r.string(value, here) else { continue }
                guard let mode = LoadMode(rawValue: word) else {
                    r.fail(here, value, "expected closed or paced, found '\(word.clipped)'")
                    continue
                }
                load.mode = mode
            case "rate":
                guard case .scalar(let s) = value else { r.fail(here, value, "expected a rate such as 200k or 50%"); continue }
                let text = s.string.trimmingSpaces
                if text.hasSuffix("%"), let pct = Double(text.dropLast()), pct > 0, pct <= 1000 {
                    load.rate = .fractionOfCapacity(pct / 100)
                } else if let n = Quantities.count(from: text), n > 0 {
                    load.rate = .perSecond(Double(n))
                } else {
                    r.fail(here, value, "expected a rate in operations per second (200k) or a share of capacity (50%), found '\(text.clipped)'")
                }
            default:
                guard let word = r.string(value, here) else { continue }
                switch word {
                case "fixed": load.poisson = false
                case "poisson": load.poisson = true
                default: r.fail(here, value, "expected fixed or poisson, found '\(word.clipped)'")
                }
            }
        }
        if load.mode == .paced && load.rate == nil { r.fail(path, node, "a paced load needs a 'rate' (200k, or 50% of capacity)") }
        if load.mode == .closed && load.rate != nil { r.fail(path, node, "'rate' only applies to mode: paced") }
        return load
    }

    /// `order: matrix` or `order: interleaved` (the plan's top level).
    func parseOrder(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> TrialOrder? {
        guard let word = r.string(node, path) else { return nil }
        if let order = TrialOrder(rawValue: word) { return order }
        let choices = TrialOrder.allCases.map(\.rawValue)
        r.fail(path, node, "'\(word.clipped)' is not one of \(choices.joined(separator: ", "))" + PlanReader.suggestion(for: word, among: choices))
        return nil
    }

    /// `allocator: jemalloc` or `allocator: [system, jemalloc]`.
    func parseAllocators(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> [AllocatorKind]? {
        var kinds: [AllocatorKind] = []
        for (i, item) in r.list(node).enumerated() {
            let here = node.sequence == nil ? path : path.appending(i)
            guard let word = r.string(item, here) else { continue }
            guard let kind = AllocatorKind(rawValue: word) else {
                r.fail(here, item, "unknown allocator '\(word.clipped)' (available: system, jemalloc)")
                continue
            }
            if kinds.contains(kind) { r.fail(here, item, "allocator '\(word)' is listed twice") } else { kinds.append(kind) }
        }
        if kinds.isEmpty, r.problems.isEmpty { r.fail(path, node, "name at least one allocator") }
        return kinds
    }

    /// `timing: { clock: tsc, sample: 8 }` (`sample: auto` is the default).
    func parseTiming(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> TimingSettings? {
        guard let entries = r.mapping(node, path, allowed: ["clock", "sample"]) else { return nil }
        var timing = TimingSettings.standard
        for (key, value) in entries {
            let here = path.appending(key)
            if key == "clock" {
                let names = ClockSource.allCases.map(\.rawValue)
                guard let word = r.string(value, here) else { continue }
                guard let clock = ClockSource(rawValue: word) else {
                    r.fail(here, value, "unknown clock '\(word.clipped)' (available: \(names.joined(separator: ", ")))")
                    continue
                }
                timing.clock = clock
            } else if case .scalar(let scalar) = value, scalar.string == "auto" {
                timing.sampling = .auto
            } else if let n = r.integer(value, here, range: 1...1_000_000, what: "'auto' or a sampling interval (1 times every operation)") {
                timing.sampling = .every(n)
            }
        }
        return timing
    }

    /// `fuzz: chaos`, or `fuzz: { profile: chaos, yield: 0.1, ... }`.
    func parseFuzz(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> FuzzSettings? {
        let profiles = FuzzProfile.allCases.map(\.rawValue)
        func profile(_ n: Node, _ p: PlanKeyPath) -> FuzzProfile? {
            guard let word = r.string(n, p) else { return nil }
            guard let f = FuzzProfile(rawValue: word) else {
                r.fail(p, n, "unknown fuzz profile '\(word.clipped)'" + PlanReader.suggestion(for: word, among: profiles)
                       + " (available: \(profiles.joined(separator: ", ")))")
                return nil
            }
            return f
        }
        if case .scalar = node { return profile(node, path).map(FuzzSettings.init) }
        guard let entries = r.mapping(node, path, allowed: ["profile"] + FuzzSettings.tunableKeys) else { return nil }
        var settings = FuzzSettings(.off)
        if let p = entries.first(where: { $0.key == "profile" }) {
            guard let f = profile(p.value, path.appending("profile")) else { return nil }
            settings = FuzzSettings(f)
        }
        for (key, value) in entries where key != "profile" {
            let here = path.appending(key)
            let probability = { (r: inout PlanReader) in r.number(value, here, range: 0...1) }
            let duration = { (r: inout PlanReader) in r.duration(value, here, positive: false) }
            switch key {
            case "yield": probability(&r).map { settings.yieldProbability = $0 }
            case "spin": probability(&r).map { settings.spinProbability = $0 }
            case "sleep": probability(&r).map { settings.sleepProbability = $0 }
            case "starve": probability(&r).map { settings.starveProbability = $0 }
            case "starve_share": probability(&r).map { settings.starveShare = $0 }
            case "spurious": probability(&r).map { settings.spuriousWakeups = $0 > 0 ? $0 : nil }
            case "spin_min": duration(&r).map { settings.spinMinNanoseconds = Swift.max(1, $0) }
            case "spin_max": duration(&r).map { settings.spinMaxNanoseconds = Swift.max(1, $0) }
            case "sleep_min": duration(&r).map { settings.sleepMinNanoseconds = Swift.max(1, $0) }
            case "sleep_max": duration(&r).map { settings.sleepMaxNanoseconds = Swift.max(1, $0) }
            case "starve_min": duration(&r).map { settings.starveMinNanoseconds = Swift.max(1, $0) }
            case "starve_max": duration(&r).map { settings.starveMaxNanoseconds = Swift.max(1, $0) }
            case "pct_wait_cap": duration(&r).map { settings.pctWaitCapNanoseconds = $0 }
            case "stagger": duration(&r).map { settings.staggerMaxNanoseconds = $0 }
            case "pct_depth": r.integer(value, here, range: 0...64).map { settings.pctDepth = $0 }
            case "pct_scope":
                guard let word = r.string(value, here) else { break }
                guard let scope = PCTScope(rawValue: word) else {
                    r.fail(here, value, "expected round or trial, found '\(word.clipped)'")
                    break
                }
                settings.pctScope = scope
            default: break
            }
        }
        for (lo, hi, name) in [(settings.spinMinNanoseconds, settings.spinMaxNanoseconds, "spin"), (settings.sleepMinNanoseconds, settings.sleepMaxNanoseconds, "sleep"),
                               (settings.starveMinNanoseconds, settings.starveMaxNanoseconds, "starve")] where lo > hi {
            r.fail(path, node, "\(name)_min is longer than \(name)_max")
        }
        return settings
    }

    /// A fuzz setting must leave the trial something to measure: the start
    /// stagger and the shortest pause of each kind must be shorter than the
    /// measured window (else every worker spends the window asleep), and no
    /// single pause may outlast the trial's timeout (else the trial is
    /// killed in it). `stagger: 168h` or `sleep_min: 168h` is a mistake,
    /// not a test. Returns whether the settings passed.
    @discardableResult
    func checkFuzzFitsTrial(_ e: Experiment, at: (node: Node, path: PlanKeyPath), _ r: inout PlanReader) -> Bool {
        let f = e.fuzz
        guard f.isActive else { return true }
        let format = Quantities.format(nanoseconds:)
        let timeout = e.timeoutNs ?? TrialMatrix.automaticTimeout(e)
        var bounds: [(key: String, ns: UInt64, limit: UInt64, limitName: String)] = []
        if let window = e.stop.durationNs {
            let w = "the measured window (duration \(format(window)))"
            bounds += [("stagger", f.staggerMaxNanoseconds, window, w), ("pct_wait_cap", f.pctDepth > 0 ? f.pctWaitCapNanoseconds : 0, window, w)]
            if f.sleepProbability > 0 { bounds.append(("sleep_min", f.sleepMinNanoseconds, window, w)) }
            if f.spinProbability > 0 { bounds.append(("spin_min", f.spinMinNanoseconds, window, w)) }
            if f.starveProbability > 0 { bounds.append(("starve_min", f.starveMinNanoseconds, window, w)) }
        }
        let t = "the trial timeout (\(format(timeout)))"
        bounds += [("stagger", f.staggerMaxNanoseconds, timeout, t), ("pct_wait_cap", f.pctDepth > 0 ? f.pctWaitCapNanoseconds : 0, timeout, t)]
        if f.sleepProbability > 0 { bounds.append(("sleep_max", f.sleepMaxNanoseconds, timeout, t)) }
        if f.spinProbability > 0 { bounds.append(("spin_max", f.spinMaxNanoseconds, timeout, t)) }
        if f.starveProbability > 0 { bounds.append(("starve_max", f.starveMaxNanoseconds, timeout, t)) }
        for b in bounds where b.ns > 0 && b.ns >= b.limit {
            r.fail(at.path, at.node, "fuzz \(b.key) (\(format(b.ns))) must be shorter than \(b.limitName): "
                   + "the fuzzer's own pauses would leave the trial nothing to measure")
            return false
        }
        return true
    }

    /// `deadlock_after` must end early enough before the trial timeout for the
    /// watchdog to report a stall in the time it keeps for that
    /// (``WatchdogTiming/reportMarginNs(timeoutNs:)``): otherwise the parent
    /// kills a deadlocked trial first and it ends as a bare `timeout`, without
    /// the watchdog's report of where every worker waits. The problem is
    /// located at the more specific of the two keys (the experiment's before
    /// `defaults`, `deadlock_after` before `timeout`).
    func checkWatchdogFitsTimeout(
        _ e: Experiment, layer: Layer, defaults: Layer, node: Node, path: PlanKeyPath, _ r: inout PlanReader
    ) {
        let timeout = e.timeoutNs ?? TrialMatrix.automaticTimeout(e)
        guard !WatchdogTiming.fits(stallAfterNs: e.deadlockAfterNs, timeoutNs: timeout) else { return }
        let format = Quantities.format(nanoseconds:)
        let timeoutText = e.timeoutNs == nil
            ? "\(format(timeout)), automatic: \(e.stop.durationNs == nil ? "warmup + 2m" : "warmup + 2 × duration + 10s")"
            : format(timeout)
        let deadlockText = format(e.deadlockAfterNs) + (layer.deadlockAfterAt ?? defaults.deadlockAfterAt == nil ? ", the default" : "")
        let at = layer.deadlockAfterAt ?? layer.timeoutAt ?? defaults.deadlockAfterAt ?? defaults.timeoutAt
        r.fail(at?.path ?? path, at?.node ?? node,
               "deadlock_after (\(deadlockText)) must be shorter than the trial timeout (\(timeoutText)) "
               + "by at least \(format(WatchdogTiming.reportMarginNs(timeoutNs: timeout))), the time the watchdog keeps to report a stall: "
               + "otherwise a deadlock ends as a bare timeout, without the watchdog's report; shorten deadlock_after or lengthen timeout")
    }

    /// `deadlock_after` must be longer than the fuzzer's longest pause: a
    /// worker the fuzzer holds (and every worker waiting for what it holds)
    /// completes nothing while it lasts, and a limit shorter than that
    /// reports the fuzzer's own pause as a `hang` of correct code. Located at
    /// the more specific of the two keys, as above. Checked only for pauses
    /// that fit the trial (``checkFuzzFitsTrial(_:at:_:)``): one problem per
    /// mistake.
    func checkWatchdogOutlastsFuzz(
        _ e: Experiment, layer: Layer, defaults: Layer, node: Node, path: PlanKeyPath, _ r: inout PlanReader
    ) {
        guard let pause = e.fuzz.longestPause, e.deadlockAfterNs <= pause.ns else { return }
        let format = Quantities.format(nanoseconds:)
        let deadlockText = format(e.deadlockAfterNs) + (layer.deadlockAfterAt ?? defaults.deadlockAfterAt == nil ? ", the default" : "")
        let at = layer.deadlockAfterAt ?? layer.fuzzAt ?? defaults.deadlockAfterAt ?? defaults.fuzzAt
        r.fail(at?.path ?? path, at?.node ?? node,
               "deadlock_after (\(deadlockText)) must be longer than the fuzzer's longest pause (\(format(pause.ns)), "
               + "\(pause.key) of fuzz profile \(e.fuzz.profile.rawValue)): a worker the fuzzer holds would look stalled, "
               + "and correct code would be reported as a hang; lengthen deadlock_after or shorten the pause")
    }

    /// Thread counts past ``PlanDefaults/maxThreadsWithoutOptIn`` and plans
    /// longer than ``PlanDefaults/maxPlannedSecondsWithoutOptIn`` need the
    /// plan to say so (`allow_large: true`, or `--allow-large`): a typo such
    /// as `threads: 4096` or `duration: 168h` must not take a machine for days.
}
