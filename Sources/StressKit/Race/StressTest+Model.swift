import StressCore
import Synchronization

extension StressTest {
    /// A test written as one body that spawns threads and joins them, as a
    /// loom or Shuttle test is: each round makes fresh state, runs `body` on
    /// a worker of its own, and runs each closure the body spawns on another
    /// worker, started when the body spawns it.
    ///
    /// ```swift
    /// @Test func incrementsAreNotLost() async {
    ///     await StressTest.model(setup: { Counter() }) { counter, threads in
    ///         let a = threads.spawn { counter.increment() }
    ///         let b = threads.spawn { counter.increment() }
    ///         a.join()
    ///         b.join()
    ///         try StressTest.check(counter.value == 2, "an increment was lost")
    ///     }
    ///     .schedule(.controlled)
    ///     .expectSuccess()
    /// }
    /// ```
    ///
    /// The order of the spawns, what the body does between them and where
    /// it joins are part of the schedule: a spawned closure cannot start
    /// before its spawn, and a join waits until its thread has returned.
    /// Under ``schedule(_:)`` `.controlled` the body is a controlled worker
    /// like the spawned ones, a spawn and a join are scheduling points, and
    /// a join that can never return (a join cycle, a join of a deadlocked
    /// thread) is a deadlock reported at once. Free-running, the body and
    /// the spawned closures run on their own threads, at the same time.
    /// Like ``race(setup:_:mainThread:check:fileID:line:column:)``, it is a scenario:
    /// seeds, ``explore(preemptions:operations:seconds:pruning:)``,
    /// shrinking and replay work as for any.
    ///
    /// The body fails a round with ``check(_:_:fileID:line:)``, by throwing,
    /// or by calling ``reportViolation(_:)``. A thread spawned and never
    /// joined still ends before the round does. A spawned thread may spawn
    /// too. A body that spawns more
    /// threads than `threads` fails its round with a message naming the
    /// number to give.
    ///
    /// `mainThread:` adds a role on the main thread that runs beside the
    /// body in every round, as for ``race(setup:_:mainThread:check:fileID:line:column:)``
    /// (and with the same needs: the main thread must serve the main queue).
    ///
    /// - Parameters:
    ///   - threads: The most threads the body spawns in a round (each is a
    ///     worker of the trial, waiting for its spawn); 1 or more.
    ///   - setup: Makes the state of one round (a fresh object each time).
    ///   - mainThread: What the main thread does to the state in a round,
    ///     beside the body, or nil for no role on the main thread.
    ///   - body: The test: spawns threads with `threads.spawn`, joins them,
    ///     and checks the state; runs once per round.
    ///   - fileID: The call's file (the compiler fills it in).
    ///   - line: The call's line (the compiler fills it in).
    ///   - column: The call's column (the compiler fills it in).
    /// - Returns: A test of the model, to configure and run.
    public static func model<State: AnyObject & Sendable>(
        spawning threads: Int = 2, setup: @escaping @Sendable () -> State,
        mainThread: (@Sendable (State) throws -> Void)? = nil,
        _ body: @escaping @Sendable (State, Threads) throws -> Void,
        fileID: String = #fileID, line: Int = #line, column: Int = #column
    ) -> StressTest {
        let id = RaceClosures<State>.id(fileID: fileID, line: line, column: column)
        let slots = Swift.max(threads, 1)
        RaceClosures.store(RaceClosures(setup: setup, shape: .model(body, spawning: slots), mainThread: mainThread, check: { _ in }),
                           as: id)
        var test = StressTest(scenario: RaceScenario<State>.self, parameters: ["race": .integer(id)])
            .strategies("unsynchronized")
            .named(raceName(fileID: fileID, line: line, prefix: "model"))
        if threads < 1 {
            test.problems.append(.init(setting: "spawning", "\(threads) threads: a model spawns 1 or more"))
        }
        return test
    }

    /// The threads a ``model(spawning:setup:mainThread:_:fileID:line:column:)`` body
    /// spawns in one round.
    public final class Threads: Sendable {
        let slots: [SpawnSlot]
        /// Threads spawned so far; the body and spawned threads still
        /// running (any may spawn); and whether none is left, so that the
        /// slots not spawned were let go.
        private let spawned = Mutex<(count: Int, live: Int, closed: Bool)>((0, 1, false))

        init(slots count: Int) {
            slots = (1...count).map { SpawnSlot(number: $0) }
        }

        /// Starts `body` on a thread of its own (the model's next worker), as
        /// `Thread` or `pthread_create` would. Under control this is a
        /// scheduling point, and the new thread may run before the caller
        /// goes on.
        ///
        /// - Parameters:
        ///   - body: What the thread does. A failed
        ///     ``StressTest/check(_:_:fileID:line:)`` or another error it
        ///     throws fails the round.
        ///   - file: The caller's file, for the trace (the compiler fills it in).
        ///   - line: The caller's line (the compiler fills it in).
        /// - Returns: The thread, to join.
        @discardableResult
        public func spawn(_ body: @escaping @Sendable () throws -> Void,
                          file: StaticString = #fileID, line: UInt = #line) -> SpawnedThread {
            let number = spawned.withLock { s -> Int? in
                guard !s.closed else { return nil }
                s.count += 1
                if s.count <= slots.count { s.live += 1 }
                return s.count
            }
            guard let number else {
                reportViolation("a thread was spawned after the model's body and every thread it spawned had returned")
                return SpawnedThread(slot: nil)
            }
            guard number <= slots.count else {
                reportViolation("the body spawned thread \(number), but the model has room for \(slots.count): "
                                + "write StressTest.model(spawning: \(number), ...)")
                return SpawnedThread(slot: nil)
            }
            let slot = slots[number - 1]
            _ = slot.spawn(body, file: file, line: line)
            return SpawnedThread(slot: slot)
        }

        /// The body or a spawned thread has returned. Once all have, no
        /// spawn can come: the threads not spawned have nothing to do this
        /// round, and are let go.
        func ended() {
            let last = spawned.withLock { s -> Bool in
                s.live -= 1
                s.closed = s.live == 0
                return s.closed
            }
            if last {
                for slot in slots { slot.close() }
            }
        }
    }

    /// A thread a model's body spawned (``Threads/spawn(_:file:line:)``).
    public struct SpawnedThread: Sendable {
        let slot: SpawnSlot?

        /// Waits until the thread's closure has returned, as
        /// `pthread_join` does. Under control the wait is modelled: the
        /// caller hands the run on, and a join that can never return is a
        /// deadlock, reported at once.
        ///
        /// - Parameters:
        ///   - file: The caller's file, for the trace (the compiler fills it in).
        ///   - line: The caller's line (the compiler fills it in).
        public func join(file: StaticString = #fileID, line: UInt = #line) {
            slot?.join(file: file, line: line)
        }
    }
}
