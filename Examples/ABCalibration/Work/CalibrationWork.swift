import StressKit

/// How many more arithmetic steps one build's `_ab-work` operation does than
/// the `work` parameter asks for: a constant compiled into each calibration
/// executable, so that two builds of the same plan differ only in their code,
/// as a main branch and a pull request do. (A `SendableMetatype`: the
/// operation's closures, which run on the workers, are generic over it.)
package protocol ExtraSteps: SendableMetatype {
    /// The extra steps per operation.
    static var steps: Int { get }
}

/// No extra step: the old build.
package enum NoExtraSteps: ExtraSteps {
    package static let steps = 0
}

/// `_ab-work` (hidden): a counter whose every increment first does `work`
/// steps of dependent arithmetic inside the critical section, plus
/// `Extra.steps` more. The workload `scripts/ab-calibration.sh` calibrates
/// `stressbench ab` with: the builds of Examples/ABCalibration register it
/// with 0, 1 or 2 extra steps. A step (one shift and one exclusive or,
/// two cycles) is about 2.5% of the operation with `work: 36` (27 ns of CPU
/// time on the reference machine): the steps are one chain of dependent
/// instructions, longer than the lock's own work, so the processor cannot
/// hide an extra step behind it.
///
/// Both builds describe it identically (the same name, parameters,
/// operation and step), so `stressbench ab` pairs their trials: what
/// differs is the code inside the step, which is what a comparison measures.
package struct CalibrationWorkload<Extra: ExtraSteps>: Workload {
    package static var descriptor: WorkloadDescriptor {
        WorkloadDescriptor(
            name: "_ab-work",
            summary: "calibration of stressbench ab: a counter whose increments do `work` dependent arithmetic steps in the critical section",
            parameters: [.integer("work", "dependent arithmetic steps (a shift and an exclusive or) per operation", default: 36, range: 0...1_000_000)],
            hidden: true
        )
    }

    /// `_busywork`'s state: the count of increments and the arithmetic's
    /// running result.
    package typealias State = BusyWorkWorkload.State

    /// Steps per operation, the extra ones included.
    let steps: Int

    package init(parameters: WorkloadParameters) throws {
        steps = try parameters.integer("work") + Extra.steps
    }

    package func makeState(threads: Int) -> State { State() }

    package func operations() -> [StressOperation<State>] {
        let steps = self.steps
        return [
            StressOperation("work", weight: 1, steps: [
                .write("steps and increment") { state, _ in
                    state.sink.pointee = XorshiftSteps.run(steps, from: state.sink.pointee)
                    state.count.pointee += 1
                    return .next
                },
            ]),
        ]
    }

    package func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        BusyWorkWorkload.countCheck(state, totals)
    }
}

/// The arithmetic of `_ab-work`.
enum XorshiftSteps {
    /// `steps` steps of xorshift64, one shift-and-xor at a time: each depends
    /// on the last, so none can be folded, reordered or vectorised away, and
    /// one step more costs one step's latency more.
    @inline(__always)
    static func run(_ steps: Int, from start: UInt64) -> UInt64 {
        var x = start, done = 0
        while done + 3 <= steps {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            done += 3
        }
        if done < steps { x ^= x << 13; done += 1 }
        if done < steps { x ^= x >> 7 }
        return x
    }
}

/// The calibration command line: `stressbench` with `_ab-work` registered
/// with `Extra` extra steps per operation.
package enum CalibrationBuild {
    /// The registry of a calibration build.
    package static func registry<Extra: ExtraSteps>(_ extra: Extra.Type) -> StressRegistry {
        var registry = StressRegistry.builtIn
        registry.register(workload: CalibrationWorkload<Extra>.self)
        return registry
    }
}
