/// Text from a plan, a path or the command line, made safe to print on a
/// terminal or in a CI log.
///
/// Plans are input: a name or a value may hold a newline, a carriage return
/// or an ANSI escape sequence. Echoed as they are, those could forge a line
/// such as `error: ...` or move the cursor over what stressbench printed.
/// Every message that quotes such text escapes it first.
extension String {
    /// This text with every control character (C0, DEL and C1) and every
    /// bidirectional override or isolate written as a visible escape: `\n`,
    /// `\r`, `\t`, or `\u{1B}` style. Printable text, including non-ASCII
    /// letters, is unchanged.
    package var terminalSafe: String {
        guard unicodeScalars.contains(where: \.needsTerminalEscape) else { return self }
        var out = ""
        out.unicodeScalars.reserveCapacity(unicodeScalars.count + 8)
        for scalar in unicodeScalars {
            guard scalar.needsTerminalEscape else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }
}

extension String {
    /// This text cut to its first 80 characters with how long it was, for a
    /// message that quotes a value: a 600 KB name makes a 600 KB error line
    /// otherwise.
    package var clipped: String {
        count <= 80 ? self : String(prefix(80)) + "… (\(count) characters)"
    }
}

extension Unicode.Scalar {
    /// Control characters and the bidirectional formatting characters that
    /// reorder what a terminal shows (the "Trojan Source" set).
    package var needsTerminalEscape: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return false
        }
    }
}
