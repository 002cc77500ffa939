import StressCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Bytes on their way to a file, gathered in one buffer of fixed size that
/// is handed to a sink each time it fills, then reused.
///
/// A stopped run of 100,000 trials writes hundreds of megabytes within
/// seconds of the signal. Built whole in memory, each file costs a fresh
/// buffer of its full size (every page of it faulted in and zeroed by the
/// kernel) and a second copy; written through one reused chunk, the same
/// bytes touch a megabyte of memory that stays in the cache. The bytes the
/// sink receives, joined, are exactly the bytes appended, wherever the
/// chunk boundaries fall (ChunkedOutputTests holds it to that).
///
/// A sink that fails is not called again: appends go on, cheaply, to
/// nothing, and ``finish()`` throws the failure. The renderers that fill
/// the output therefore need no error path of their own.
package final class ChunkedOutput {
    /// Where full chunks go: a descriptor's `write`, or, in tests and for the
    /// callers that want the bytes in memory, a collecting closure.
    package typealias Sink = (UnsafeRawBufferPointer) throws(FileWriteError) -> Void

    /// One megabyte: large enough that the system-call cost per byte is
    /// nothing, small enough to stay in the CPU's cache.
    package static let standardChunk = 1 << 20

    private let buffer: UnsafeMutableRawBufferPointer
    private var used = 0
    private let sink: Sink
    /// The sink's first failure; nothing is handed on after it.
    package private(set) var failure: FileWriteError?
    /// How many bytes were appended so far (handed on or still buffered).
    package private(set) var count = 0

    /// An output that hands `sink` chunks of `chunk` bytes (the last one shorter).
    package init(chunk: Int = standardChunk, sink: @escaping Sink) {
        precondition(chunk > 0, "a chunk holds at least one byte")
        buffer = .allocate(byteCount: chunk, alignment: 16)
        self.sink = sink
    }

    deinit { buffer.deallocate() }

    /// Appends `bytes`, splitting them across chunks as they fall.
    package func append(_ bytes: UnsafeRawBufferPointer) {
        count += bytes.count
        guard failure == nil else { return }
        var from = 0
        while from < bytes.count {
            let n = min(buffer.count - used, bytes.count - from)
            (buffer.baseAddress! + used).copyMemory(from: bytes.baseAddress! + from, byteCount: n)
            used += n
            from += n
            if used == buffer.count {
                handOn()
                if failure != nil { return }
            }
        }
    }

    /// Appends the bytes of `array`.
    package func append(_ array: [UInt8]) { array.withUnsafeBytes { append($0) } }

    /// Appends the bytes of `data`.
    package func append(_ data: Data) { data.withUnsafeBytes { append($0) } }

    /// Appends `text` in UTF-8 (a native string's bytes are copied as they
    /// lie; no array is made).
    package func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends one byte.
    package func append(byte: UInt8) {
        count += 1
        guard failure == nil else { return }
        buffer[used] = byte
        used += 1
        if used == buffer.count { handOn() }
    }

    /// Appends `value` in decimal, as `String(value)` writes it, without
    /// making the string.
    package func append(decimal value: UInt64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for the 20 digits of UInt64.max
        withUnsafeMutableBytes(of: &digits) { room in
            let at = DecimalText.writeDigits(value, endingAt: room.count, into: room)
            append(UnsafeRawBufferPointer(rebasing: room[at...]))
        }
    }

    /// Appends `value` in decimal, a `-` first when it is negative, as `String(value)` writes it.
    package func append(decimal value: Int) {
        if value < 0 { append(byte: UInt8(ascii: "-")) }
        append(decimal: value.magnitude.toUInt64)
    }

    /// Hands on what is buffered and throws the sink's failure, if any.
    /// Call it once, after the last append.
    package func finish() throws(FileWriteError) {
        if failure == nil && used > 0 { handOn() }
        if let failure { throw failure }
    }

    private func handOn() {
        do {
            try sink(UnsafeRawBufferPointer(rebasing: buffer[0..<used]))
        } catch {
            failure = error
        }
        used = 0
    }
}

extension ChunkedOutput {
    /// Runs `fill` on an output whose chunks are gathered in memory, and
    /// returns every byte it appended: for callers that want the whole file
    /// (small reports, tests that compare bytes).
    package static func collecting(chunk: Int = 1 << 16, _ fill: (ChunkedOutput) throws -> Void) rethrows -> [UInt8] {
        let gathered = Gathered()
        let output = ChunkedOutput(chunk: chunk) { (bytes: UnsafeRawBufferPointer) throws(FileWriteError) in
            gathered.bytes.append(contentsOf: bytes)
        }
        try fill(output)
        try? output.finish()  // the collecting sink cannot fail
        return gathered.bytes
    }

    /// An output whose chunks are written to `fd` (``DescriptorOutput/writeAll(_:to:path:abandonWhen:)``).
    package static func writing(to fd: Int32, path: String, abandonWhen abandon: @escaping () -> Bool) -> ChunkedOutput {
        ChunkedOutput { (bytes: UnsafeRawBufferPointer) throws(FileWriteError) in
            try DescriptorOutput.writeAll(bytes, to: fd, path: path, abandonWhen: abandon)
        }
    }

    /// The bytes a collecting output gathers (a class: the sink escapes).
    private final class Gathered { var bytes: [UInt8] = [] }
}

private extension UInt {
    var toUInt64: UInt64 { UInt64(self) }
}
