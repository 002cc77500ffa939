/// What one participant of a trial (a worker, the main thread, a helper
/// thread) has published, as the watchdog reads it.
struct ParticipantState {
    var site: SiteWord
    /// The site it had when it began waiting for a harness-aware primitive
    /// (its phase is then `blocked`): where in the strategy's sections it is.
    var savedSite = SiteWord(raw: 0)
    var completed: UInt64
    /// The key it waits for and what kind of wait (0: none); see CStressParticipant.h.
    var waitKey: UInt64 = 0
    var waitKind: UInt64 = 0
    /// The keys it holds.
    var held: [UInt64] = []
    /// What the harness executor says of a worker in an async step, shown in
    /// place of its phase's words (see ``Watchdog/judged(_:_:)``).
    var note: String?
    /// What the kernel says its thread is doing, read for a worker in the
    /// code under test that has not run during a stall (see ``KernelThreads``).
    var kernel: KernelWaitState?
}
