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
        guard let slot = outer.range(of: emptyTrials) else { return try encoder.encode(report) }
        var data = Data(outer[..<slot.lowerBound])
        data.append(Data("\n  \"trials\" : [\n".utf8))
        data.append(try encodeElements(report.trials, indent: 4))
        data.append(Data("\n  ]".utf8))
        data.append(outer[slot.upperBound...])
        return data
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

    /// `text`'s bytes when the encoder writes the string as they are
    /// (printable ASCII but `"` and `\\`; `/` too, as the encoder is told
    /// not to escape it); nil when it would escape something.
    static func plainJSONString(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        return bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } ? bytes : nil
    }

    /// How the pretty printer writes the report's empty `trials` list: `[`, a
    /// blank line, `]`; at two spaces of indent only the report's own key is there.
    static let emptyTrials = Data("\n  \"trials\" : [\n\n  ]".utf8)

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
            // Records alike but for their identity (a stop's skipped ones)
            // are spliced from one encoding of their kind.
            var splicer = RecordSplicer(render: { item in
                guard let json = try? encoder.encode(item) else { return nil }
                var indented: [UInt8] = []
                appendIndented(json, by: pad, into: &indented)
                return indented
            }, plain: plainJSONString)
            let result = Result<Data, any Error> {
                var out: [UInt8] = []
                for (n, item) in items[(slice * size)..<min(items.count, (slice + 1) * size)].enumerated() {
                    if n > 0 { out += [UInt8(ascii: ","), UInt8(ascii: "\n")] }
                    if let bytes = splicer.bytes(of: item) {
                        out += bytes
                    } else {
                        appendIndented(try encoder.encode(item), by: pad, into: &out)
                    }
                }
                return Data(out)
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
