import Foundation
@testable import StressRunner
import XCTest

/// The chunked writer that stopped runs write their files through: what the
/// sink receives, joined, is exactly what was appended, wherever the chunk
/// boundaries fall; every chunk but the last is full; a failing sink is not
/// called again and its error comes out of `finish`; and an atomic file
/// whose filling fails is left as it was.
final class ChunkedOutputTests: XCTestCase {
    /// Appends of every size, a byte, a string, numbers, cut into chunks of
    /// 1 byte, a few bytes, exactly the whole, and more than the whole.
    func testTheChunksJoinToWhatWasAppendedWhateverTheirSize() throws {
        let expected = Self.appendAll(to: nil)
        for chunk in [1, 2, 3, 7, 64, expected.count - 1, expected.count, expected.count + 1, 1 << 20] {
            var chunks: [[UInt8]] = []
            let output = ChunkedOutput(chunk: chunk) { (bytes: UnsafeRawBufferPointer) throws(FileWriteError) in
                chunks.append(Array(bytes))
            }
            _ = Self.appendAll(to: output)
            try output.finish()
            XCTAssertEqual(chunks.flatMap { $0 }, expected, "chunk of \(chunk) bytes")
            XCTAssertEqual(output.count, expected.count)
            XCTAssertTrue(chunks.dropLast().allSatisfy { $0.count == chunk }, "every chunk but the last is full (\(chunk) bytes)")
            XCTAssertFalse(chunks.contains { $0.isEmpty }, "no empty chunk is handed on (\(chunk) bytes)")
            XCTAssertEqual(chunks.count, (expected.count + chunk - 1) / chunk, "\(chunk) bytes")
        }
    }

    /// A file of exactly one chunk is one call; a file smaller than a chunk is one call, at `finish`.
    func testExactlyOneChunkAndLessThanOne() throws {
        let bytes = Array("0123456789".utf8)
        for (chunk, calls) in [(10, 1), (11, 1), (1 << 20, 1), (5, 2), (9, 2)] {
            var seen: [Int] = []
            let output = ChunkedOutput(chunk: chunk) { (b: UnsafeRawBufferPointer) throws(FileWriteError) in seen.append(b.count) }
            output.append(bytes)
            try output.finish()
            XCTAssertEqual(seen.count, calls, "chunk \(chunk): \(seen)")
            XCTAssertEqual(seen.reduce(0, +), 10)
        }
        var none = 0
        let empty = ChunkedOutput(chunk: 4) { (_: UnsafeRawBufferPointer) throws(FileWriteError) in none += 1 }
        try empty.finish()
        XCTAssertEqual(none, 0, "nothing appended: nothing handed on")
    }

    /// Numbers come out as `String(_:)` writes them.
    func testDecimalsAreWhatStringWrites() {
        let unsigned: [UInt64] = [0, 1, 9, 10, 99, 100, 4_294_967_296, 15_882_301_947_226_153_339, .max]
        let signed: [Int] = [0, 7, -1, -10, 123_456_789, .max, .min]
        let bytes = ChunkedOutput.collecting(chunk: 3) { out in
            for u in unsigned { out.append(decimal: u); out.append(byte: UInt8(ascii: " ")) }
            for i in signed { out.append(decimal: i); out.append(byte: UInt8(ascii: " ")) }
        }
        let expected = (unsigned.map { String($0) } + signed.map { String($0) }).map { $0 + " " }.joined()
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), expected)
    }

    /// After the sink fails, it is not called again, appending goes on
    /// harmlessly, and `finish` throws the first failure.
    func testAFailingSinkIsNotCalledAgainAndFinishThrows() {
        var calls = 0
        let output = ChunkedOutput(chunk: 4) { (_: UnsafeRawBufferPointer) throws(FileWriteError) in
            calls += 1
            if calls == 2 { throw FileWriteError(path: "out.json", reason: "No space left on device") }
        }
        output.append(Array(repeating: 1, count: 20))
        output.append("more text")
        XCTAssertEqual(calls, 2)
        XCTAssertThrowsError(try output.finish()) { error in
            XCTAssertEqual((error as? FileWriteError)?.reason, "No space left on device")
        }
        XCTAssertEqual(calls, 2)
    }

    /// Streamed to a regular file, the bytes are all there; when the
    /// filling throws halfway, the old file is untouched and no temporary
    /// file is left beside it.
    func testAnAtomicFileIsWholeOrUntouched() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chunked-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.json").path
        // Three and a half chunks of the standard size, each byte its own.
        let big = (0..<(ChunkedOutput.standardChunk * 7 / 2)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        try AtomicFile.write(to: path) { out in out.append(big) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data(big))

        struct Halfway: Error {}
        XCTAssertThrowsError(try AtomicFile.write(to: path) { out in
            out.append(Array(repeating: UInt8(ascii: "x"), count: ChunkedOutput.standardChunk * 2))
            throw Halfway()
        }) { XCTAssertTrue($0 is Halfway, "\($0)") }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data(big), "the old file stays")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["out.json"], "no temporary file left")
    }

    /// Appends a mix of everything to `output` (when given) and returns the
    /// bytes it appended, built the plain way.
    private static func appendAll(to output: ChunkedOutput?) -> [UInt8] {
        var plain: [UInt8] = []
        let pieces: [[UInt8]] = [[], [0x41], Array("{\"a\":1}".utf8), Array(repeating: 0x7A, count: 1000), Array(0...255)]
        for (n, piece) in pieces.enumerated() {
            output?.append(piece)
            plain += piece
            output?.append(byte: UInt8(n))
            plain.append(UInt8(n))
            let text = "résumé \(n) ✓"
            output?.append(text)
            plain += Array(text.utf8)
            output?.append(Data(piece.reversed()))
            plain += piece.reversed()
            output?.append(decimal: UInt64(n) * 1_000_000_007)
            plain += Array(String(UInt64(n) * 1_000_000_007).utf8)
        }
        return plain
    }
}
