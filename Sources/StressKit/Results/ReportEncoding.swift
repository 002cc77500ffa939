import Foundation
import Synchronization

extension ResultCoding {
    /// `report` as the results file has it: byte for byte what
    /// ``encoder(pretty:)`` writes, with its trials encoded in slices on every
    /// core. A run stopped by a signal must write thousands of records within
    /// moments (a container's stop grace is seconds), and encoding is most of
    /// that; the trials are most of the encoding.
    public static func encodeResults(_ report: RunReport) throws -> Data {
        let encoder = encoder()
        guard report.trials.count >= 64 else { return try encoder.encode(report) }
        var shell = report
        shell.trials = []
        let outer = try encoder.encode(shell)
        // The pretty printer writes an empty list as `[`, a blank line, `]`;
        // at two spaces of indent only the report's own `trials` key is there.
        let placeholder = Data("\n  \"trials\" : [\n\n  ]".utf8)
        guard let slot = outer.range(of: placeholder) else { return try encoder.encode(report) }
        var data = Data(outer[..<slot.lowerBound])
        data.append(Data("\n  \"trials\" : [\n".utf8))
        data.append(try encodeElements(report.trials, indent: 4))
        data.append(Data("\n  ]".utf8))
        data.append(outer[slot.upperBound...])
        return data
    }

    /// `items` as the pretty printer writes the elements of a list nested
    /// `indent` spaces deep: each one's lines indented, blank lines left
    /// blank, `,` and a newline between them.
    static func encodeElements(_ items: [TrialResult], indent: Int) throws -> Data {
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, items.count / 32))
        let size = (items.count + slices - 1) / slices
        let parts = Mutex([Int: Result<Data, any Error>]())
        let pad = [UInt8](repeating: UInt8(ascii: " "), count: indent)
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let encoder = encoder()
            let result = Result<Data, any Error> {
                var out = Data()
                for (n, item) in items[(slice * size)..<min(items.count, (slice + 1) * size)].enumerated() {
                    if n > 0 { out.append(contentsOf: Array(",\n".utf8)) }
                    let lines = try encoder.encode(item).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                    for (i, line) in lines.enumerated() {
                        if i > 0 { out.append(UInt8(ascii: "\n")) }
                        if !line.isEmpty { out.append(contentsOf: pad) }
                        out.append(contentsOf: line)
                    }
                }
                return out
            }
            parts.withLock { $0[slice] = result }
        }
        return try parts.withLock { parts in
            var all = Data()
            for slice in 0..<slices {
                guard let part = try parts[slice]?.get(), !part.isEmpty else { continue }
                if !all.isEmpty { all.append(contentsOf: Array(",\n".utf8)) }
                all.append(part)
            }
            return all
        }
    }
}
