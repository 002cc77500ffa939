import StressCore
import Synchronization

/// The scenario behind ``StressTest/race(setup:_:mainThread:check:fileID:line:column:)``
/// and ``StressTest/model(spawning:setup:mainThread:_:fileID:line:column:)``: its roles
/// and check are closures, which a scenario type cannot carry, so they wait
/// in a table under a number made from the call's place in the source (the
/// same in a child process that runs the test again), and the scenario finds
/// them by that number, its one parameter.
///
/// A race's role `i` runs closure `i`. A model's role 0 runs the body, and
/// role `i` (1 and up) waits for the body's `i`-th spawn and runs what it
/// was given: the spawned threads are workers from the round's start, held
/// at a harness-aware semaphore until spawned, so one engine runs both. A
/// `mainThread:` closure is one more role, the last, placed on the main
/// thread (``Role/onMainThread``).
struct RaceScenario<State: AnyObject & Sendable>: Scenario {
    static var descriptor: ScenarioDescriptor {
        ScenarioDescriptor(name: "race", summary: "a race written as closures (StressTest.race, StressTest.model)",
                           parameters: [.integer("race", "which call of StressTest.race or model (made from its place in the source)",
                                                 default: 0, range: 0...Int.max)],
                           hidden: true)
    }

    let closures: RaceClosures<State>

    init(parameters: WorkloadParameters) throws {
        let id = try parameters.integer("race")
        guard let closures = RaceClosures<State>.find(id) else {
            throw WorkloadParameterError(parameter: "race", "no StressTest.race or model call registered these closures in this process")
        }
        self.closures = closures
    }

    func roles() -> [Role<RaceRound<State>>] {
        workerRoles() + (closures.mainThread.map { body in
            // Last, so that the other roles keep their workers' numbers.
            [role("main thread", onMainThread: true) { round in round.perform("the main thread's role") { try body(round.state) } }]
        } ?? [])
    }

    private func workerRoles() -> [Role<RaceRound<State>>] {
        switch closures.shape {
        case .roles(let bodies):
            return bodies.enumerated().map { i, body in
                role("role \(i)") { round in round.perform("role \(i)") { try body(round.state) } }
            }
        case .model(let body, let spawning):
            let main = role("body") { round in
                // However the body returns, it can spawn no more (the
                // threads not spawned are let go once no spawned one runs).
                guard let threads = round.threads else { return }
                defer { threads.ended() }
                round.perform("the body") { try body(round.state, threads) }
            }
            return [main] + (1...spawning).map { i in
                role("thread \(i)") { round in round.threads?.slots[i - 1].run(in: round) }
            }
        }
    }

    private func role(_ name: String, onMainThread: Bool = false,
                      _ run: @escaping @Sendable (RaceRound<State>) -> Void) -> Role<RaceRound<State>> {
        Role(name, onMainThread: onMainThread, steps: [.unguarded("run") { round, _ in
            run(round)
            return .next
        }])
    }

    func makeState() -> RaceRound<State> { RaceRound(state: closures.setup(), spawning: closures.spawning) }

    /// The round's check: an error it throws is the round's violation. A
    /// round a check already failed ended there, and is not checked again.
    func arbiter(_ round: RaceRound<State>) -> RoundOutcome {
        guard !round.failed else { return RoundOutcome() }
        do {
            try closures.check(round.state)
            return RoundOutcome()
        } catch is FailedCheck {
            return RoundOutcome()  // booked by the check
        } catch {
            return RoundOutcome().violating("check failed: \(error)")
        }
    }

    func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }
}

/// One race's or model's closures, kept for the scenario to find.
struct RaceClosures<State: AnyObject & Sendable>: Sendable {
    /// What runs on the workers.
    enum Shape: Sendable {
        /// A race: one closure per worker.
        case roles([@Sendable (State) throws -> Void])
        /// A model: a body that spawns up to `spawning` threads.
        case model(@Sendable (State, StressTest.Threads) throws -> Void, spawning: Int)
    }

    let setup: @Sendable () -> State
    let shape: Shape
    /// The role that runs on the main thread, beside the others; nil for none.
    var mainThread: (@Sendable (State) throws -> Void)?
    let check: @Sendable (State) throws -> Void

    /// The threads a model's body may spawn; nil for a race.
    var spawning: Int? {
        if case .model(_, let spawning) = shape { return spawning }
        return nil
    }

    /// Keeps `closures` under `id` in ``raceTable``.
    static func store(_ closures: RaceClosures, as id: Int) { raceTable.withLock { $0[id] = closures } }

    /// The closures kept under `id`, if they have this state type.
    static func find(_ id: Int) -> RaceClosures? { raceTable.withLock { $0[id] as? RaceClosures } }

    /// A number for a place in the source: FNV-1a, so the same in every
    /// process (Swift's own hashing is seeded per process).
    static func id(fileID: String, line: Int, column: Int) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in "\(fileID):\(line):\(column)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        return Int(hash >> 1)
    }
}

/// Every race's closures by number, for the life of the process (a test
/// binary makes a handful); global because a generic type cannot have a
/// stored static.
private let raceTable = Mutex<[Int: any Sendable]>([:])
