#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Foundation

/// Where in an operation a fuzz point is.
public enum FuzzPoint: UInt64, Sendable {
    /// As an operation begins, before its first step.
    case operationStart = 1
    /// Before asking for a critical section: a lock's acquire, a queue's submit,
    /// the `await` that hops to an actor.
    case beforeAcquire
    /// Just inside a critical section: after the lock is taken, on entry to a
    /// queue's block or an actor's isolated region.
    case afterAcquire
    /// Inside, just before leaving: before the unlock, at a block's or isolated
    /// region's exit.
    case beforeRelease
    /// Just after leaving: after the unlock, or when the caller resumes.
    case afterRelease
    /// As an operation ends, after its last step.
    case operationEnd
    /// Where a workload calls ``OpFrame/fuzzPoint(_:file:line:)``.
    case user
    /// Between two steps of a multi-step operation.
    case betweenSteps
}

/// What a fuzz point decided.
package enum Perturbation: Equatable, Sendable {
    case none
    case yield
    case spin(UInt64)
    case sleep(UInt64)
}

/// One worker's fuzzer. Every decision is a pure function of (worker seed, index
/// of the point on this worker), from a counter-based generator, so the same seed
/// makes the same decisions however the OS interleaves the threads. Lives in the
/// worker's frame: checking whether it is active is a branch on a worker-local
/// flag, nothing shared.
package struct Fuzzer: Sendable {
    /// False for profile `off`: every point is then one predictable branch.
    package let active: Bool
    private let settings: FuzzSettings
    private let seed: UInt64
    private let thread: Int
    private let isVictim: Bool
    /// Whether the coordinator decides every switch (controlled scheduling):
    /// a point then only asks it, and nothing sleeps, spins or yields.
    /// Stored, not asked at every point, where it was a call through the
    /// coordinator's witness table a decision; it takes the padding after
    /// `isVictim`, so the frame every loop carries stays its size.
    private let controlled: Bool
    /// Where the workers' points meet, when the policy makes them agree
    /// (soft PCT); nil for most policies.
    private let coordinator: (any FuzzCoordinator)?
    /// Where the worker publishes its site: a pause the fuzzer makes is
    /// published as `fuzzing` while it lasts, so the watchdog never takes
    /// the harness's own pause for a stall of the code under test.
    private let probe: SiteProbe
    /// Points this worker has passed (the counter of the generator).
    private(set) var index: UInt64 = 0
    private var starvedNs: UInt64 = 0
    private var startNs: UInt64 = 0

    package static let off = Fuzzer(settings: FuzzSettings(.off), seed: 0, thread: 0, threads: 1, coordinator: nil, probe: .detached)

    init(settings: FuzzSettings, seed: UInt64, thread: Int, threads: Int, coordinator: (any FuzzCoordinator)?, probe: SiteProbe) {
        self.settings = settings
        self.probe = probe
        active = settings.isActive || coordinator != nil
        self.seed = SplitMix64.derive(seed, 0xF022 &+ UInt64(thread))
        self.thread = thread
        isVictim = settings.starveProbability > 0 && Int(SplitMix64.derive(seed, 0x5EED) % UInt64(threads)) == thread
        self.coordinator = coordinator
        controlled = coordinator?.ownsSchedule ?? false
    }

    /// The `n`-th uniform draw in [0, 1) of this worker's stream for point `i`.
    @inline(__always)
    private func uniform(_ i: UInt64, _ n: UInt64) -> Double {
        Double(SplitMix64.mix(seed ^ SplitMix64.mix(i &* 8 &+ n)) >> 11) * 0x1p-53
    }

    private func logUniform(_ u: Double, _ lo: UInt64, _ hi: UInt64) -> UInt64 {
        guard hi > lo else { return lo }
        return UInt64(exp(log(Double(lo)) + u * (log(Double(hi)) - log(Double(lo)))))
    }

    /// The decision at the next point (advances the counter). Pure apart from the
    /// starvation cap, which depends on this worker's own elapsed time.
    mutating func decide() -> Perturbation {
        let i = index
        index &+= 1
        if isVictim && uniform(i, 0) < settings.starveProbability {
            let now = MonotonicClock.now()
            if startNs == 0 { startNs = now }
            let hold = logUniform(uniform(i, 1), settings.starveMinNanoseconds, settings.starveMaxNanoseconds)
            if Double(starvedNs + hold) <= settings.starveShare * Double(now &- startNs) {
                starvedNs += hold
                return .sleep(hold)
            }
        }
        if uniform(i, 2) < settings.sleepProbability {
            return .sleep(logUniform(uniform(i, 3), settings.sleepMinNanoseconds, settings.sleepMaxNanoseconds))
        }
        if uniform(i, 4) < settings.spinProbability {
            return .spin(logUniform(uniform(i, 5), settings.spinMinNanoseconds, settings.spinMaxNanoseconds))
        }
        if uniform(i, 6) < settings.yieldProbability { return .yield }
        return .none
    }

    /// A fuzz point on an OS thread: decide, then block, spin or yield right
    /// here (after the coordinator lets it go on: under PCT, once no
    /// higher-priority worker is runnable).
    mutating func hit(_ point: FuzzPoint) {
        if coordinator != nil, tellCoordinator(point, detail: nil) { return }
        perform(decide())
    }

    /// ``hit(_:)`` at an operation's start or between its steps, saying
    /// which operation or step (`detail`), for a controlled trial's trace.
    mutating func hit(_ point: FuzzPoint, detail: Int) {
        if coordinator != nil, tellCoordinator(point, detail: detail) { return }
        perform(decide())
    }

    /// The coordinator's point, from a method that does not mutate: there
    /// the coordinator is borrowed from `self` as it is, where `if let` in
    /// a mutating method retained it for the call and released it after.
    /// Under controlled scheduling on 2 CPUs that pair of atomic updates,
    /// on the scheduler's first cache line, went from one CPU to the other
    /// at every decision. Returns whether the coordinator owns the schedule.
    private func tellCoordinator(_ point: FuzzPoint, detail: Int?) -> Bool {
        if let detail {
            paused { coordinator.unsafelyUnwrapped.point(thread, at: point, detail: detail) }
        } else {
            paused { coordinator.unsafelyUnwrapped.point(thread, at: point) }
        }
        return controlled
    }

    /// Performs `p`, published as a fuzz pause when it takes time.
    private func perform(_ p: Perturbation) {
        switch p {
        case .none, .yield: Self.perform(p)
        case .spin, .sleep: paused { Self.perform(p) }
        }
    }

    /// Runs `body` with the worker's site published as `fuzzing`, then puts
    /// the site it had back.
    @inline(__always)
    private func paused(_ body: () -> Void) {
        let site = probe.current()
        probe.publish(SiteWord(site: site.site ?? -1, phase: .fuzzing))
        body()
        probe.publish(site)
    }

    /// A fuzz point inside an actor's isolated region: the same perturbations,
    /// blocking the actor's thread as a slow actor method would. The
    /// coordinator only counts the point here: holding the worker while it
    /// holds the actor would stall the pool threads the others need.
    mutating func hitIsolated(_ point: FuzzPoint) {
        coordinator?.count()
        perform(decide())
    }

    /// Decides the next point now, to be performed later (see ``NestedHops``).
    mutating func decideNext() -> Perturbation {
        coordinator?.count()
        return decide()
    }

    static func perform(_ p: Perturbation) {
        switch p {
        case .none: break
        case .yield: sched_yield()
        case .spin(let ns): spin(ns)
        case .sleep(let ns): MonotonicClock.sleep(nanoseconds: ns)
        }
    }

    /// A fuzz point in a task, outside any isolated region: yields and sleeps
    /// suspend the task instead of blocking the pool thread, and so does the
    /// coordinator's hold (a PCT wait for higher-priority workers).
    mutating func hitInTask(_ point: FuzzPoint) async {
        let site = probe.current()
        let pause = SiteWord(site: site.site ?? -1, phase: .fuzzing)
        if let coordinator {
            probe.publish(pause)
            await coordinator.pointInTask(thread)
            probe.publish(site)
        }
        switch decide() {
        case .none: break
        case .yield: await Task.yield()
        case .spin(let ns):
            probe.publish(pause)
            Self.spin(ns)
            probe.publish(site)
        case .sleep(let ns):
            probe.publish(pause)
            try? await Task.sleep(nanoseconds: ns)
            probe.publish(site)
        }
    }

    /// The seeded delay after the start barrier.
    func stagger() -> UInt64 {
        settings.staggerMaxNanoseconds == 0 || controlled ? 0 : UInt64(uniform(UInt64.max, 7) * Double(settings.staggerMaxNanoseconds))
    }

    /// Whether scenario rounds are staggered (``stagger(round:)`` is not
    /// always 0): a stagger is set, and the schedule is not controlled. Asked
    /// once before a worker's rounds, where asking for each role's stagger
    /// copied the fuzzer twice a role.
    var staggers: Bool { settings.staggerMaxNanoseconds > 0 && !controlled }

    /// The seeded delay before this worker's role in scenario round `round`
    /// (a function of the seed, the worker and the round, like every decision).
    func stagger(round: Int) -> UInt64 {
        guard settings.staggerMaxNanoseconds > 0, !controlled else { return 0 }
        return UInt64(Double(SplitMix64.mix(seed ^ SplitMix64.mix(0x5_7A66E2 &+ UInt64(round))) >> 11) * 0x1p-53
                      * Double(settings.staggerMaxNanoseconds))
    }

    /// Waits `ns` for a round's stagger, published as a fuzz pause: a spin
    /// below 100 µs (a sleep that short overshoots by tens of microseconds),
    /// a sleep above.
    func pause(nanoseconds ns: UInt64) {
        guard ns > 0 else { return }
        paused { ns < 100_000 ? Self.spin(ns) : MonotonicClock.sleep(nanoseconds: ns) }
    }

    /// Busy-waits about `ns` nanoseconds.
    static func spin(_ ns: UInt64) {
        let until = MonotonicClock.now() &+ ns
        while MonotonicClock.now() < until { stress_cpu_relax() }
    }
}
