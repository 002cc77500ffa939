import Foundation
import Synchronization
import StressCore

extension ResultCoding {
    /// `report` as the results file has it: byte for byte what
    /// ``encoder(pretty:)`` writes, with its trials encoded in slices on every
    /// core. A run stopped by a signal must write thousands of records within
    /// moments (a container's stop grace is seconds), and encoding is most of
    /// that; the trials are most of the encoding.
    ///
    /// - Parameter report: The run's report.
    /// - Returns: The results file's bytes: pretty, key-sorted JSON.
    /// - Throws: An `EncodingError` (none for a report the harness made).
    public static func encodeResults(_ report: RunReport) throws -> Data {
        let encoder = encoder()
        guard report.trials.count >= 64 else { return try encoder.encode(report) }
        var shell = report
        shell.trials = []
        let outer = try encoder.encode(shell)
        guard let slot = outer.range(of: emptyTrials) else { return try encoder.encode(report) }
        // Put together once, in a buffer of the final size: a stopped large
        // run's file is hundreds of megabytes, and each copy of it costs.
        let elements = try encodeElements(report.trials, indent: 4)
        let open = Array("\n  \"trials\" : [\n".utf8), close = Array("\n  ]".utf8), between = Array(",\n".utf8)
        var data = Data(capacity: outer.count + open.count + close.count + elements.reduce(0) { $0 + $1.count + between.count })
        data.append(outer[..<slot.lowerBound])
        data.append(contentsOf: open)
        for (n, part) in elements.enumerated() {
            if n > 0 { data.append(contentsOf: between) }
            data.append(contentsOf: part)
        }
        data.append(contentsOf: close)
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

    /// Whether the encoder writes `text` as its bytes are (printable ASCII
    /// but `"` and `\\`; `/` too, as the encoder is told not to escape it).
    static func isPlainJSONString(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    /// Room for `count` records when the first took `first` bytes: a
    /// buffer of hundreds of megabytes that doubled as it grew would be
    /// copied and faulted in again and again. A quarter more, as the rest
    /// may be larger; pages never written cost nothing.
    static func capacity(after first: Int, of count: Int) -> Int {
        let (room, overflow) = (first + 2).multipliedReportingOverflow(by: count + count / 4)
        return overflow ? first : room
    }

    /// How the pretty printer writes the report's empty `trials` list: `[`, a
    /// blank line, `]`; at two spaces of indent only the report's own key is there.
    static let emptyTrials = Data("\n  \"trials\" : [\n\n  ]".utf8)

    /// `items` as the pretty printer writes the elements of a list nested
    /// `indent` spaces deep: each one's lines indented, blank lines left
    /// blank, `,` and a newline between them. In parts, in order, none
    /// empty, to be joined by `,` and a newline (each part is one core's).
    static func encodeElements(_ items: [TrialResult], indent: Int) throws -> [[UInt8]] {
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, items.count / 32))
        let size = (items.count + slices - 1) / slices
        let parts = Mutex([Int: Result<[UInt8], any Error>]())
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
            }, plain: isPlainJSONString)
            let result = Result<[UInt8], any Error> {
                var out: [UInt8] = []
                let mine = items[(slice * size)..<min(items.count, (slice + 1) * size)]
                for (n, item) in mine.enumerated() {
                    if n > 0 {
                        out.append(UInt8(ascii: ","))
                        out.append(UInt8(ascii: "\n"))
                    }
                    if !splicer.append(item, to: &out) { appendIndented(try encoder.encode(item), by: pad, into: &out) }
                    if n == 0 { out.reserveCapacity(Self.capacity(after: out.count, of: mine.count)) }
                }
                return out
            }
            parts.withLock { $0[slice] = result }
        }
        return try parts.withLock { parts in
            try (0..<slices).compactMap { slice in try parts[slice]?.get() }.filter { !$0.isEmpty }
        }
    }
}
