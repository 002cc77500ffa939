import Foundation
import StressCore

extension ResultCoding {
    /// `report` as the results file has it: byte for byte what
    /// ``encoder(pretty:)`` writes, and what a run writes to its results
    /// file in chunks, gathered in memory.
    ///
    /// - Parameter report: The run's report.
    /// - Returns: The results file's bytes: pretty, key-sorted JSON.
    /// - Throws: An `EncodingError` (none for a report the harness made).
    public static func encodeResults(_ report: RunReport) throws -> Data {
        Data(try ChunkedOutput.collecting { try writeResults(report, to: $0) })
    }

    /// Appends `report` as the results file has it to `out`: byte for byte
    /// what ``encoder(pretty:)`` writes, its trials one after another, so
    /// that the file is never whole in memory. A run stopped by a signal
    /// must write thousands of records within moments (a container's stop
    /// grace is seconds); its `skipped` records are spliced from one
    /// encoding of their kind (``RecordSplicer``).
    package static func writeResults(_ report: RunReport, to out: ChunkedOutput) throws {
        let encoder = encoder()
        guard report.trials.count >= 64 else { return out.append(try encoder.encode(report)) }
        var shell = report
        shell.trials = []
        let outer = try encoder.encode(shell)
        guard let slot = outer.range(of: emptyTrials) else { return out.append(try encoder.encode(report)) }
        out.append(outer[..<slot.lowerBound])
        out.append("\n  \"trials\" : [\n")
        try writeElements(report.trials, indent: 4, to: out)
        out.append("\n  ]")
        out.append(outer[slot.upperBound...])
    }

    /// Appends `json` to `out` with every line that is not blank indented by
    /// `pad`, in one pass over its bytes (a split into lines costs more than
    /// the encoding).
    private static func appendIndented(_ json: Data, by pad: [UInt8], into out: inout [UInt8]) {
        let newline = UInt8(ascii: "\n")
        json.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            out.reserveCapacity(out.count + bytes.count + bytes.count / 8)
            var lineStart = true
            for byte in bytes {
                if lineStart && byte != newline { out += pad }
                out.append(byte)
                lineStart = byte == newline
            }
        }
    }

    /// Whether the encoder writes `text` as its bytes are (printable ASCII
    /// but `"` and `\\`; `/` too, as the encoder is told not to escape it).
    static func isPlainJSONString(_ text: String) -> Bool {
        // Over the contiguous bytes: a stop asks this of every skipped
        // record's id and rerun command, in two files.
        var text = text
        return text.withUTF8 { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        }
    }

    /// How the pretty printer writes the report's empty `trials` list: `[`, a
    /// blank line, `]`; at two spaces of indent only the report's own key is there.
    static let emptyTrials = Data("\n  \"trials\" : [\n\n  ]".utf8)

    /// Appends `items` to `out` as the pretty printer writes the elements
    /// of a list nested `indent` spaces deep: each one's lines indented,
    /// blank lines left blank, `,` and a newline between them.
    static func writeElements(_ items: [TrialResult], indent: Int, to out: ChunkedOutput) throws {
        let encoder = encoder()
        let pad = [UInt8](repeating: UInt8(ascii: " "), count: indent)
        // Records alike but for their identity (a stop's skipped ones) are
        // spliced from one encoding of their kind.
        var splicer = RecordSplicer(render: { item in
            guard let json = try? encoder.encode(item) else { return nil }
            var indented: [UInt8] = []
            appendIndented(json, by: pad, into: &indented)
            return indented
        }, plain: isPlainJSONString)
        var indented: [UInt8] = []
        for (n, item) in items.enumerated() {
            if n > 0 { out.append(",\n") }
            if !splicer.append(item, to: out) {
                indented.removeAll(keepingCapacity: true)
                appendIndented(try encoder.encode(item), by: pad, into: &indented)
                out.append(indented)
            }
        }
    }
}
