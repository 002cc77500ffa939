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
///
/// The status line is cut to the terminal's width (read at every redraw, so
/// a resized window is followed): a line that wrapped could not be redrawn in
/// place and would leave a trail of stale lines. Under `TERM=dumb` it uses no
/// escape sequences: a carriage return, and spaces over the previous line.
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
        /// Columns the status line last took, which a plain redraw overwrites.
        var shownWidth = 0
    }

    private let mode: Mode
    private let plain: Bool
    private let expected: [Double]
    private let state = Mutex(State())

    /// A display for `trials`; `quiet` turns it off.
    init(trials: [TrialSpec], quiet: Bool) {
        mode = !quiet && isatty(STDERR_FILENO) == 1 ? .live : .off
        plain = ProcessInfo.processInfo.environment["TERM"] == "dumb"
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
                        Self.write(clearLine(&s) + Self.finishedLine(index: index, total: total, spec: spec, result: result) + "\n")
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
            if s.statusShown { Self.write(clearLine(&s)) }
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
        let fitted = Self.fitted(line, columns: Self.terminalColumns())
        Self.write(clearLine(&s) + fitted)
        s.shownWidth = fitted.count
        s.statusShown = true
    }

    /// Back to the start of the status line, cleared: an escape sequence, or
    /// on a dumb terminal spaces over what was shown.
    private func clearLine(_ s: inout State) -> String {
        defer { s.shownWidth = 0 }
        return Self.clearing(width: s.shownWidth, plain: plain)
    }

    /// `\r` and erase-line, or (`plain`) `\r`, `width` spaces and `\r`.
    static func clearing(width: Int, plain: Bool) -> String {
        guard plain else { return "\r\u{1B}[K" }
        return width == 0 ? "\r" : "\r" + String(repeating: " ", count: width) + "\r"
    }

    /// `line` cut to fit `columns` less one (a line as wide as the terminal
    /// wraps on some terminals), ending in `…` when cut.
    static func fitted(_ line: String, columns: Int?) -> String {
        guard let columns, columns > 1 else { return line }
        let room = columns - 1
        guard line.count > room else { return line }
        return room < 2 ? String(line.prefix(room)) : String(line.prefix(room - 1)) + "…"
    }

    /// The terminal's width (standard error's, else `COLUMNS`), or nil.
    private static func terminalColumns() -> Int? {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init)
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
