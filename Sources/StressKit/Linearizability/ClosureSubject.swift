import StressCore
import Synchronization

/// The subject of ``StressTest/linearizable(model:make:run:operations:fileID:line:column:)``:
/// the closures a test gave, found by the number of the call's place in the
/// source (the same in a child process that runs the test again), as
/// ``RaceScenario`` finds its closures.
struct ClosureSubject<Model: SequentialModel, Object: Sendable>: LinearizabilitySubject {
    /// The test's object, in a class of its own so that a struct or an actor
    /// reference works alike.
    final class Box: Sendable {
        let object: Object
        init(_ object: Object) { self.object = object }
    }

    let model: Model
    let make: @Sendable () -> Object
    let call: @Sendable (Object, Model.Operation) -> Model.Result
    let operations: StressTest.Operations<Model.Operation>

    func makeObject() -> Box { Box(make()) }

    func generate(_ random: inout SplitMix64) -> Model.Operation { operations.draw(&random) }

    func runAlone(_ operation: Model.Operation, on box: Box) -> Model.Result { call(box.object, operation) }

    static var descriptor: ScenarioDescriptor {
        var descriptor = ScenarioDescriptor(
            name: "linearizable", summary: "a linearizability check written as closures (StressTest.linearizable)",
            parameters: [
                .integer("linearizable", "which call of StressTest.linearizable (made from its place in the source)",
                         default: 0, range: 0...Int.max),
                .integer("threads", "workers in a scenario's parallel part", default: 2, range: 2...64),
                .integer("time_limit_ms", "how long the checker may take on one history before it says unknown",
                         default: 1_000, range: 1...3_600_000),
            ] + LinearizabilityShape.parameterSpecs,
            hidden: true)
        descriptor.maxStride = LinearizabilityShape.maxStride
        return descriptor
    }

    static func make(parameters: WorkloadParameters) throws -> (ClosureSubject, LinearizabilityShape, Duration) {
        let id = try parameters.integer("linearizable")
        guard let subject = subjectTable.withLock({ $0[id] }) as? ClosureSubject else {
            throw WorkloadParameterError(parameter: "linearizable",
                                         "no StressTest.linearizable call registered these closures in this process")
        }
        let shape = try LinearizabilityShape(threads: try parameters.integer("threads"), parameters: parameters)
        return (subject, shape, .milliseconds(try parameters.integer("time_limit_ms")))
    }

    /// Keeps `subject` under `id`, for the scenario to find.
    static func store(_ subject: ClosureSubject, as id: Int) { subjectTable.withLock { $0[id] = subject } }
}

/// Every linearizability check's closures by number, for the life of the
/// process (a test binary makes a handful); global because a generic type
/// cannot have a stored static.
private let subjectTable = Mutex<[Int: any Sendable]>([:])
