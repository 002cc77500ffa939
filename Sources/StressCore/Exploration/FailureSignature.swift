/// What makes two failures "the same" for shrinking: the same stall kind,
/// or the same broken invariant, its message with the numbers left out
/// ("final count # != # increments done (# lost)").
package struct FailureSignature: Equatable, Sendable {
    let stall: StallReport.Kind?
    let messages: Set<String>

    init?(_ outcome: ControlledExecution.Outcome) {
        switch outcome {
        case .stalled(let report):
            stall = report.kind
            messages = []
        case .violated(let output):
            stall = nil
            messages = Set(output.violations.samples.map { Self.shape($0.message) })
        default:
            return nil
        }
    }

    /// Whether `other` is a failure of the same kind as this one: the same
    /// stall, or a violation sharing one of this one's messages.
    func matches(_ other: FailureSignature) -> Bool {
        if let stall { return other.stall == stall }
        return other.stall == nil && (messages.isEmpty || !messages.isDisjoint(with: other.messages))
    }

    /// `message` with every run of digits as `#`: the words two failures of
    /// the same kind share (a free-running failure and one hunted for under
    /// control are compared by it too).
    package static func shape(_ message: String) -> String {
        var out = ""
        var inNumber = false
        for c in message {
            if c.isNumber {
                if !inNumber { out.append("#") }
                inNumber = true
            } else {
                out.append(c)
                inNumber = false
            }
        }
        return out
    }
}
