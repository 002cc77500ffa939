import StressCore
import Synchronization

/// The scenario behind ``StressTest/race(setup:_:check:fileID:line:column:)``:
/// its roles and check are closures, which a scenario type cannot carry, so
/// they wait in a table under a number made from the call's
/// place in the source (the same in a child process that runs the test
/// again), and the scenario finds them by that number, its one parameter.
struct RaceScenario<State: AnyObject & Sendable>: Scenario {
    static var descriptor: ScenarioDescriptor {
        ScenarioDescriptor(name: "race", summary: "a race written as closures (StressTest.race)",
                           parameters: [.integer("race", "which call of StressTest.race (made from its place in the source)",
                                                 default: 0, range: 0...Int.max)],
                           hidden: true)
    }

    let closures: RaceClosures<State>

    init(parameters: WorkloadParameters) throws {
        let id = try parameters.integer("race")
        guard let closures = RaceClosures<State>.find(id) else {
            throw WorkloadParameterError(parameter: "race", "no StressTest.race call registered these closures in this process")
        }
        self.closures = closures
    }

    func roles() -> [Role<State>] {
        closures.roles.enumerated().map { i, body in
            Role("role \(i)", steps: [.unguarded("run") { state, _ in
                body(state)
                return .next
            }])
        }
    }

    func makeState() -> State { closures.setup() }

    /// The round's check: an error it throws is the round's violation.
    func arbiter(_ state: State) -> RoundOutcome {
        do {
            try closures.check(state)
            return RoundOutcome()
        } catch {
            return RoundOutcome().violating("check failed: \(error)")
        }
    }

    func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }
}

/// One race's closures, kept for the scenario to find.
struct RaceClosures<State: AnyObject & Sendable>: Sendable {
    let setup: @Sendable () -> State
    let roles: [@Sendable (State) -> Void]
    let check: @Sendable (State) throws -> Void

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
