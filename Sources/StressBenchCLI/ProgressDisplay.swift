import Foundation
import StressKit
import Synchronization

/// What `run` shows on standard error while trials run.
///
/// On a terminal: one status line, redrawn in place every second, with the
/// trial number, the current trial, the time elapsed and an estimate of the
/// time left; trials that do not pass are printed above it as they finish.
/// When standard error is not a terminal (CI logs, pipes), and with `--quiet`:
/// nothing, so a log holds the final table and summary on standard output
/// and no stream of progress lines.
final class ProgressDisplay: Sendable {
    enum Mode { case off, live }

    private struct State {
        var started = MonotonicClock.now()
        var trialStarted = MonotonicClock.now()
        var current: TrialSpec?
        var index = 0
        var finished = 0
        var expectedDone = 0.0
        var elapsedAtLastFinish = 0.0
        var statusShown = false
        var stopped = false
    }

    private let mode: Mode
    private let expected: [Double]
    private let state = Mutex(State())

    /// A display for `trials`; `quiet` turns it off.
    init(trials: [TrialSpec], quiet: Bool) {
        mode = !quiet && isatty(STDERR_FILENO) == 1 ? .live : .off
        expected = trials.map(TrialDurationEstimate.seconds)
        if mode == .live {
            // A ticker keeps the elapsed time moving during a long trial.
            Thread.detachNewThread { [weak self] in
                while let display = self, display.tick() {
                    MonotonicClock.sleep(nanoseconds: 1_000_000_000)
                }
            }
        }
    }

    /// Called by the runner before a trial (`result` nil) and after it.
    func update(index: Int, total: Int, spec: TrialSpec, result: TrialResult?) {
        switch mode {
        case .off: return
        case .live:
            state.withLock { s in
                if let result {
                    s.finished += 1
                    s.expectedDone += expected[index]
                    s.elapsedAtLastFinish = Self.seconds(since: s.started)
                    s.current = nil
                    if result.expectation != .passed {
                        Self.write("\r\u{1B}[K" + Self.finishedLine(index: index, total: total, spec: spec, result: result) + "\n")
                    }
                } else {
                    s.current = spec
                    s.index = index
                    s.trialStarted = MonotonicClock.now()
                }
                draw(&s)
            }
        }
    }

    /// Clears the status line; call before printing the final report.
    func finish() {
        guard mode == .live else { return }
        state.withLock { s in
            s.stopped = true
            if s.statusShown { Self.write("\r\u{1B}[K") }
            s.statusShown = false
        }
    }

    /// Redraws the status line; false once the display has finished.
    private func tick() -> Bool {
        state.withLock { s in
            guard !s.stopped else { return false }
            draw(&s)
            return true
        }
    }

    private func draw(_ s: inout State) {
        let elapsed = Self.seconds(since: s.started)
        var line = "[\(s.finished + (s.current == nil ? 0 : 1))/\(expected.count)]"
        if let c = s.current { line += " \(c.id)" }
        line += " · elapsed \(Self.clock(elapsed))"
        if let left = remaining(s, elapsed: elapsed) { line += " · about \(Self.clock(left)) left" }
        Self.write("\r\u{1B}[K" + line)
        s.statusShown = true
    }

    /// Expected time of the trials not yet finished, scaled by how long the
    /// finished ones really took compared with their expectation.
    private func remaining(_ s: State, elapsed: Double) -> Double? {
        let left = expected[s.finished...].reduce(0, +)
        let scale = s.expectedDone > 0 ? s.elapsedAtLastFinish / s.expectedDone : 1
        let inCurrent = s.current == nil ? 0 : Self.seconds(since: s.trialStarted)
        return Swift.max(0, left * scale - inCurrent)
    }

    static func finishedLine(index: Int, total: Int, spec: TrialSpec, result: TrialResult) -> String {
        let rate = result.measurement.map { Formatting.rate($0.opsPerSecond) + " ops/s" } ?? ""
        return "[\(index + 1)/\(total)] \(spec.id): \(TableReport.outcomeCell(result)) \(rate)"
    }

    /// `42s`, `3m05s`, `1h02m`.
    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return String(format: "%dm%02ds", s / 60, s % 60) }
        return String(format: "%dh%02dm", s / 3600, (s % 3600) / 60)
    }

    private static func seconds(since start: UInt64) -> Double { Double(MonotonicClock.now() &- start) / 1e9 }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
