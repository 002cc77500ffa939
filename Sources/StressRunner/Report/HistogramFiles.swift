import Foundation
import StressCore

/// HdrHistogram percentile-distribution files (`.hgrm`), one per trial that
/// timed something, in the format HdrHistogram's plotter reads (values in
/// microseconds).
package enum HistogramFiles {
    /// The file name of `trial`'s distribution: its id with `/` as `_`.
    public static func fileName(_ trial: TrialSpec) -> String {
        trial.id.replacingOccurrences(of: "/", with: "_") + ".hgrm"
    }

    /// Writes one file per trial of `report` that has latency samples into
    /// `directory` (created if missing), each atomically; returns the paths.
    public static func write(_ report: RunReport, to directory: String) throws -> [String] {
        try AtomicFile.prepareDirectory(directory)
        var written: [String] = []
        for r in report.trials {
            guard let m = r.measurement, !m.histogram.isEmpty else { continue }
            let path = URL(fileURLWithPath: directory).appendingPathComponent(fileName(r.trial)).path
            try AtomicFile.write(LatencyHistogram(buckets: m.histogram).percentileDistribution(), to: path)
            written.append(path)
        }
        return written
    }
}
