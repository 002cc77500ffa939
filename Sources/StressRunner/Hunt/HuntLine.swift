import Foundation
import StressCore

/// The NDJSON stream's line for a hunt: `{"hunt": {...}, "kind": "hunt",
/// "trial": "<trial id>"}`.
///
/// A free trial's record goes to the stream the moment the trial ends, and
/// its hunt runs after the whole run, so the record's line cannot carry
/// `hunt` as the JSON file's does; rather than rewrite a line a reader may
/// already have read, the stream gets this line after it, naming the trial.
/// A reader folds it into that trial's record (``RecordStream/read(_:)``
/// does); one that only knows trial records tells it apart by `kind`, which
/// no trial record has.
package struct HuntLine: Sendable, Codable, Equatable {
    /// What the line is: always ``kind``'s one value, `hunt`.
    package var kind = HuntLine.kind
    /// The id of the free trial that was hunted (an earlier line's `trial.id`).
    package var trial: String
    /// What the hunt found: the same object as that record's `hunt` in the JSON file.
    package var hunt: HuntRecord

    /// The `kind` of a hunt line.
    package static let kind = "hunt"

    /// The line for `hunt`, a hunt for trial `trial`'s failure.
    package init(trial: String, hunt: HuntRecord) {
        self.trial = trial
        self.hunt = hunt
    }

    /// `line` as a hunt line; nil for any other line (a trial record).
    package static func decode(_ line: Data) -> HuntLine? {
        guard let decoded = try? ResultCoding.decoder().decode(HuntLine.self, from: line), decoded.kind == kind else { return nil }
        return decoded
    }

    /// Puts this hunt into `records`: on the last record of its trial (a
    /// stream has one per trial, and a record only before its hunt's line).
    /// A line whose trial is not there (its record's line was cut short) is
    /// left out.
    package func fold(into records: inout [TrialResult]) {
        guard let i = records.lastIndex(where: { $0.trial.id == trial }) else { return }
        records[i].hunt = hunt
    }
}

extension RecordStream {
    /// Appends a hunt's line (``HuntLine``), flushed to disk.
    func append(_ line: HuntLine) { append(line: line, about: line.trial) }
}
