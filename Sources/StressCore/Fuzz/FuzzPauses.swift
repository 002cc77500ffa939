/// The longest pause the fuzzer may make: a worker held that long must not
/// look stalled, so the watchdog's limit (`deadlock_after`) must be longer.
extension FuzzSettings {
    /// The longest single pause of these settings (and, for a portfolio, of
    /// every profile it rotates through), with the key that sets it; nil
    /// when they make none. Yields are not pauses: the OS decides how long
    /// they take. Nor is the start stagger: a worker takes it between
    /// operations (or before its role), holding nothing, so nobody waits for
    /// it but at a barrier, and the watchdog never counts that as a stall.
    package var longestPause: (ns: UInt64, key: String)? {
        var pauses: [(ns: UInt64, key: String)] = []
        if spinProbability > 0 { pauses.append((spinMaxNanoseconds, "spin_max")) }
        if sleepProbability > 0 { pauses.append((sleepMaxNanoseconds, "sleep_max")) }
        if starveProbability > 0 { pauses.append((starveMaxNanoseconds, "starve_max")) }
        if pctDepth > 0 { pauses.append((pctWaitCapNanoseconds, "pct_wait_cap")) }
        pauses += SchedulingPolicies.policy(for: profile).rotation.compactMap { FuzzSettings($0).longestPause }
        return pauses.max { $0.ns < $1.ns }
    }
}
