/// One place where a schedule departs from the non-preemptive one (the
/// worker that ran goes on while it can, else the lowest-numbered runnable
/// one): at `place`, `worker` runs instead. A schedule that shrinking
/// replays is a list of these; naming a place by the worker that decides
/// there and how many decisions that worker had passed keeps it meaning the
/// same moment when other deviations are removed before it.
struct ScheduleDeviation: Hashable, Sendable {
    /// Where: the worker that passed the point (-1: no worker, as at the
    /// start) and its count of decisions before this one.
    struct Place: Hashable, Sendable {
        var current: Int
        var ordinal: Int
    }

    var place: Place
    /// Who runs there.
    var worker: Int
    /// Whether it is a preemption (the current worker could have gone on).
    var preempts: Bool
}
