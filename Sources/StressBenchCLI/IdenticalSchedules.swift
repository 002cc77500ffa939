import StressKit

/// How many of replay's reruns of a controlled trial followed the same
/// schedule: replay's `identical schedule: N/M`.
///
/// The reference is the schedule given with `--schedule`, or else the first
/// rerun's own (so that rerun always counts as identical). A rerun's schedule
/// is identical when its record's `schedule.encoded` says the same decisions
/// as the reference; one with no schedule (its process died before it could
/// tell) is not. Where no schedule was given and the first reruns recorded
/// none, the first that records one becomes the reference.
struct IdenticalSchedules: Equatable {
    /// The schedule every rerun is compared with, in canonical form; nil
    /// until one is known.
    private(set) var reference: String?
    /// Reruns whose schedule is the reference.
    private(set) var identical = 0
    /// Reruns counted.
    private(set) var total = 0
    /// Reruns whose record holds no schedule (the trial process died, a
    /// crash, before it could report one).
    private(set) var unrecorded = 0

    /// A count against `given` (`--schedule`), or against the first rerun's
    /// schedule when nil.
    init(given: String? = nil) {
        reference = given.map(Self.canonical)
    }

    /// Counts one rerun whose record's schedule is `schedule`.
    mutating func add(_ schedule: ScheduleRecord?) {
        total += 1
        guard let encoded = schedule?.encoded else {
            unrecorded += 1
            return
        }
        let mine = Self.canonical(encoded)
        if reference == nil { reference = mine }
        if mine == reference { identical += 1 }
    }

    /// `identical schedule: 9/10`, saying how many reruns recorded no
    /// schedule to compare (a crash ends the process before it reports).
    var summary: String {
        "identical schedule: \(identical)/\(total)"
            + (unrecorded > 0 ? " (\(unrecorded) recorded none: the trial process died before it could report its schedule)" : "")
    }

    /// `text` with spaces dropped and adjacent runs of one worker joined
    /// (`w0:1, w0:1,w1:2` is `w0:2,w1:2`), so that a hand-written schedule
    /// equals the engine's encoding of the same decisions; a text that is not
    /// a schedule stays as it is. Counts runs, never decisions, so a long
    /// schedule costs no memory per decision.
    static func canonical(_ text: String) -> String {
        var runs: [(worker: Int, count: Int)] = []
        let compact = text.filter { $0 != " " }
        guard !compact.isEmpty else { return "" }
        for part in compact.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count == 2, pieces[0].first == "w", let worker = Int(pieces[0].dropFirst()), worker >= 0,
                  let count = Int(pieces[1]), count > 0 else { return text }
            if let last = runs.last, last.worker == worker {
                let (sum, overflow) = last.count.addingReportingOverflow(count)
                guard !overflow else { return text }
                runs[runs.count - 1].count = sum
            } else {
                runs.append((worker, count))
            }
        }
        return ScheduleEncoding.encode(runs)
    }
}
