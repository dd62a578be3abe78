extension String {
    /// Fit for one log line on a terminal: `\` doubled; newline, carriage return and tab as
    /// `\n`, `\r`, `\t`; other C0 controls and DEL as `\x1b`-style; C1 controls, the Unicode
    /// line/paragraph separators and bidirectional overrides as `\u0085`-style. So a file
    /// name can neither split a log line nor send a terminal escape sequence, nor reorder
    /// what a reader sees.
    public var logEscaped: String {
        // Fast path for the common case (plain ASCII paths and names): nothing to do.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) { return self }
        guard unicodeScalars.contains(where: Self.needsLogEscape) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count + 16)
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x5C: result += "\\\\"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0x00..<0x20, 0x7F: result += "\\x" + Self.hex(scalar.value, digits: 2)
            case _ where Self.needsLogEscape(scalar): result += "\\u" + Self.hex(scalar.value, digits: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsLogEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x5C, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: Swift.max(0, digits - text.count)) + text
    }
}
