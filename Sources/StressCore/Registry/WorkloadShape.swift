import Foundation

/// What identifies a workload or scenario's operations, apart from their code.
package struct WorkloadShape: Sendable, Codable, Equatable {
    /// Its registered name.
    public var name: String
    /// `workload` or `scenario`; `missing` when the executable has no such name.
    public var kind: String
    /// Its parameters: `name: type; default value`.
    public var parameters: [String]
    /// For every parameter set the plan uses: its operations (or a
    /// scenario's roles) with their steps.
    public var forms: [Form]

    /// The operations of one parameter set.
    public struct Form: Sendable, Codable, Equatable {
        /// The parameters, in their compact form (`accounts=8, amount=3`).
        public var parameters: String
        /// `name ×weight: step (access), step (access)`, one per operation or
        /// role; or why the workload could not be made with these parameters.
        public var operations: [String]
        /// Whether it has lock-free operations for these parameters.
        public var lockFree: Bool?
    }

    /// The shape of `name` in `registry`, for `parameterSets`.
    package init(name: String, parameterSets: [WorkloadParameters], registry: StressRegistry) {
        self.name = name
        if let w = registry.workload(named: name) {
            kind = "workload"
            parameters = w.descriptor.parameters.map(Self.describe)
            forms = parameterSets.map { p in
                Form(parameters: p.compactDescription, operations: Self.attempt { try w.operationShapes(p) }, lockFree: w.supportsLockFree(p))
            }
        } else if let s = registry.scenario(named: name) {
            kind = "scenario"
            parameters = s.descriptor.parameters.map(Self.describe)
            forms = parameterSets.map { p in Form(parameters: p.compactDescription, operations: Self.attempt { try s.roleShapes(p) }) }
        } else {
            kind = "missing"
            parameters = []
            forms = []
        }
    }

    private static func describe(_ p: ParameterSpec) -> String {
        "\(p.name): \(p.typeDescription); default \(p.defaultValue)"
    }

    private static func attempt(_ body: () throws -> [String]) -> [String] {
        do { return try body() } catch { return ["cannot be made: \(error)"] }
    }

    /// `name ×weight: step (access), ...` for steps of an operation or role.
    static func line<State>(_ name: String, weight: Double?, _ steps: [Step<State>]) -> String {
        let w = weight.map { " ×" + Formatting.digits($0) } ?? ""
        return "\(name)\(w): " + steps.map { "\($0.name) (\(describe($0.access)))" }.joined(separator: ", ")
    }

    static func describe(_ access: StepAccess) -> String {
        switch access {
        case .unguarded: return "unguarded"
        case .read(let r): return "read \(r)"
        case .write(let r): return "write \(r)"
        case .nestedWrite(let outer, let inner): return "nested write \(outer) then \(inner)"
        case .nestedWrites(let path): return "nested writes " + path.resources.map(String.init).joined(separator: " then ")
        case .hold(let r): return "hold \(r)"
        case .release(let r): return "release \(r)"
        case .waitUntil(let r, let timeoutNs): return "wait until on \(r) (timeout \(timeoutNs) ns)"
        case .awaiting: return "async"
        }
    }
}
