/// Picks operations by weight from a worker's random stream: one draw and a
/// short scan over cumulative thresholds, no allocation.
struct OperationPicker: Sendable {
    private let thresholds: [UInt64]
    /// The only operation with a weight, when there is exactly one: then no
    /// random draw is needed.
    let single: Int?

    init(weights: [Double]) {
        let weighted = weights.indices.filter { weights[$0] > 0 }
        single = weighted.count == 1 ? weighted[0] : nil
        let total = weights.reduce(0) { $0 + Swift.max(0, $1) }
        var running = 0.0
        var t: [UInt64] = []
        for w in weights {
            running += Swift.max(0, w)
            let fraction = total > 0 ? running / total : 1
            t.append(fraction >= 1 ? UInt64.max : UInt64(fraction * 18_446_744_073_709_551_615.0))
        }
        thresholds = t
    }

    @inline(__always)
    func pick(_ random: inout SplitMix64) -> Int {
        if let single { return single }
        let x = random.next()
        for i in 0..<thresholds.count where x < thresholds[i] { return i }
        return thresholds.count - 1
    }
}
