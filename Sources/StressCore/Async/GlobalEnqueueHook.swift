#if canImport(Glibc)
import Glibc
#endif

/// The Swift runtime's hook for jobs enqueued on the global concurrent
/// executor (`swift_task_enqueueGlobal_hook`), the one swift-concurrency-extras'
/// `withMainSerialExecutor` uses. While a deterministic trial runs, it sends
/// those jobs to the trial's one executor thread too (a sleeping task's
/// wake-up, a task resumed from outside a worker, an unstructured `Task {}`),
/// so no job of the code under test runs on a thread the seed does not
/// schedule; while a parallel harness trial runs it counts them, for the
/// record, and lets them go. At other times, and when the runtime has no such
/// hook, jobs go where they always go.
enum GlobalEnqueueHook {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// The scheduler taking the global jobs now; nil: none does.
    nonisolated(unsafe) private static var target: JobScheduler?
    // nonisolated(unsafe): set only by the coordinator around a trial while
    // no job of the trial runs yet or any more; read by the hook.

    // nonisolated(unsafe): the runtime's own hook variable, written only by
    // attach and detach on the coordinator, between trials' jobs.
    nonisolated(unsafe) private static let slot: UnsafeMutablePointer<Hook?>? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return nil }
        return symbol.assumingMemoryBound(to: Hook?.self)
    }()

    /// Whether this runtime has the hook.
    static var isAvailable: Bool { slot != nil }

    /// Sends global jobs to `scheduler` until ``detach()``; false when the
    /// runtime has no hook (the record then says the trial's global jobs ran elsewhere).
    static func attach(_ scheduler: JobScheduler) -> Bool {
        guard let slot else { return false }
        target = scheduler
        slot.pointee = { job, original in
            if let target = GlobalEnqueueHook.target { target.submitGlobal(job, original: original) } else { original(job) }
        }
        return true
    }

    /// Global jobs go to the global executor again.
    static func detach() {
        target = nil
        slot?.pointee = nil
    }
}
