import StressCore

extension StressTest {
    /// A race in a few lines: fresh state for each round, two or more roles
    /// that run at the same time (one worker each), and a check of the state
    /// once every role has finished. loom's `model` and Shuttle's
    /// `check_pct`, for Swift:
    ///
    /// ```swift
    /// @Test func oneTaskPerURL() {
    ///     StressTest.race(
    ///         setup: { ImageDownloader() },
    ///         { d in d.retrieve(url) },
    ///         { d in d.retrieve(url) },
    ///         check: { d in try #require(d.tasksCreated == 1) })
    ///         .schedule(.controlled)
    ///         .expectSuccess()
    /// }
    /// ```
    ///
    /// It is a scenario like any other: each round runs the roles on a fresh
    /// state, free-running by default or, with ``schedule(_:)``
    /// `.controlled`, one at a time with the seed picking every switch at
    /// the harness-aware primitives and ``fuzzPoint(_:file:line:)`` calls, so a failure
    /// replays exactly. The roles run under no strategy of the harness's
    /// (they bring their own synchronization); every other setting
    /// (``seed(_:)``, ``duration(_:)``, ``ops(_:)`` for a number of rounds,
    /// `fuzz`) works as for any test.
    ///
    /// A check fails a round by throwing (`try #require(...)`, or an error of
    /// its own) or by calling ``reportViolation(_:)``. A plain `#expect` is
    /// not seen: it runs on a worker thread, outside the test's task. A role
    /// may fail the round where it stands with ``check(_:_:fileID:line:)``
    /// (or by throwing): the round's final check is then skipped. For
    /// threads started in an order of your choosing and joined, see
    /// ``model(spawning:setup:mainThread:_:fileID:line:column:)``.
    ///
    /// `mainThread:` adds a role that runs on the main thread, as UI code or
    /// a main-queue callback does: a role that hands work to the main
    /// thread with `StressQueue.main.sync` then races with it, and under
    /// control the main thread is a participant of the schedule (a
    /// `main.sync` from a role that holds a lock the main thread's role
    /// waits for is a deadlock found at once, its cycle naming the main
    /// thread). It needs the main thread to serve the main queue: a trial
    /// process (`.isolated()`, ``isolated(as:)``) or an in-process run
    /// started on the main thread (a synchronous XCTest method). Elsewhere
    /// (a Swift Testing test in process, whose main thread runs the test
    /// runner) a controlled trial fails with an error saying so, and a free
    /// one runs the role on the main queue, on whichever thread drains it.
    ///
    /// - Parameters:
    ///   - setup: Makes the state of one round (a fresh object each time).
    ///   - roles: What each worker does to the state in a round; one or more
    ///     (two or more without `mainThread`). An error a role throws fails
    ///     the round.
    ///   - mainThread: What the main thread does to the state in a round, or
    ///     nil for no role on the main thread.
    ///   - check: Looks at the state after every role has finished; throws
    ///     to fail the round.
    ///   - fileID: The call's file (the compiler fills it in).
    ///   - line: The call's line (the compiler fills it in).
    ///   - column: The call's column (the compiler fills it in).
    /// - Returns: A test of the race, to configure and run.
    public static func race<State: AnyObject & Sendable>(
        setup: @escaping @Sendable () -> State, _ roles: (@Sendable (State) throws -> Void)...,
        mainThread: (@Sendable (State) throws -> Void)? = nil,
        check: @escaping @Sendable (State) throws -> Void = { _ in },
        fileID: String = #fileID, line: Int = #line, column: Int = #column
    ) -> StressTest {
        let id = RaceClosures<State>.id(fileID: fileID, line: line, column: column)
        RaceClosures.store(RaceClosures(setup: setup, shape: .roles(roles), mainThread: mainThread, check: check), as: id)
        return StressTest(scenario: RaceScenario<State>.self, parameters: ["race": .integer(id)])
            .strategies("unsynchronized")
            .named(raceName(fileID: fileID, line: line))
    }

    /// The experiment's name: `race-<file>-<line>` (`race-DownloaderTests-42`),
    /// or `model-...` for a model, in the letters trial ids and file names allow.
    static func raceName(fileID: String, line: Int, prefix: String = "race") -> String {
        let file = fileID.split(separator: "/").last.map(String.init) ?? fileID
        let stem = file.hasSuffix(".swift") ? String(file.dropLast(6)) : file
        let safe = String(stem.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) ? Character($0) : "_" })
        return "\(prefix)-\(safe)-\(line)"
    }
}
