/// Integers written in decimal as bytes, as `String(value)` writes them,
/// without making a string for each: for output of millions of numbers (a
/// schedule's text; the results files' writers, through `ChunkedOutput`),
/// where a string a number costs more than the rest of the writing.
package enum DecimalText {
    /// The digits of `magnitude` (1 for zero).
    package static func digitCount(_ magnitude: UInt64) -> Int {
        var rest = magnitude, digits = 1
        while rest >= 10 { rest /= 10; digits += 1 }
        return digits
    }

    /// The characters of `value` in decimal, a `-` included.
    package static func length(_ value: Int) -> Int {
        digitCount(UInt64(value.magnitude)) + (value < 0 ? 1 : 0)
    }

    /// Writes the digits of `magnitude` so that the last is at `end - 1`;
    /// returns where the first is. `bytes` must have room from `end` minus
    /// ``digitCount(_:)`` on.
    package static func writeDigits(_ magnitude: UInt64, endingAt end: Int, into bytes: UnsafeMutableRawBufferPointer) -> Int {
        var at = end, rest = magnitude
        repeat {
            at -= 1
            bytes[at] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
        return at
    }

    /// Writes `value` (a `-` first when it is negative) at `start`; returns
    /// the index past it. `bytes` must have room for ``length(_:)``.
    package static func write(_ value: Int, at start: Int, into bytes: UnsafeMutableRawBufferPointer) -> Int {
        var start = start
        if value < 0 { bytes[start] = UInt8(ascii: "-"); start += 1 }
        let magnitude = UInt64(value.magnitude)
        let end = start + digitCount(magnitude)
        _ = writeDigits(magnitude, endingAt: end, into: bytes)
        return end
    }
}
