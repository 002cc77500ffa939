/// The paced rate per worker, worked out by the coordinator between the
/// warm-up and the measured window.
final class PacingSchedule: @unchecked Sendable {
    // @unchecked: written once by the coordinator before the measure barrier and
    // only read by workers after it (the barrier orders the two).
    private(set) var perWorkerRate: Double = 0
    private(set) var capacity: Double?

    func resolve(_ settings: TrialSettings, board: SiteBoard) {
        guard settings.load.mode == .paced, let rate = settings.load.rate else { return }
        switch rate {
        case .perSecond(let r):
            perWorkerRate = r / Double(settings.threads)
        case .fractionOfCapacity(let f):
            // Capacity is what the closed-loop warm-up achieved.
            let done = (0..<board.workers).reduce(UInt64(0)) { $0 + board.read($1).completed }
            let measured = settings.warmupNs > 0 ? Double(done) / (Double(settings.warmupNs) / 1e9) : 0
            capacity = measured
            perWorkerRate = measured * f / Double(settings.threads)
        }
    }
}
