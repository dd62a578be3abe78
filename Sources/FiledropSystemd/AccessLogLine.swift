import FiledropCore
import FiledropHTTP

/// The text of an access-log record, written straight into a line's bytes: the same text
/// `LogLineFormat.body(record.event)` gives, without a String per field or an escaping pass.
/// Only for plain ASCII (printable, no backslash): there escaping changes nothing and
/// quoting is all that can apply. Anything else is left to the general path.
enum AccessLogLine {
    /// Appends the body to `line`; false (leaving `line` partly written) when a value is not
    /// plain ASCII, so the caller formats `record.event` instead.
    static func appendBody(_ record: AccessLogRecord, to line: inout [UInt8]) -> Bool {
        let method = record.method.description
        guard isPlain(method), isPlain(record.target), isPlain(record.client) else { return false }
        line.appendUTF8(method)
        line.append(0x20)
        line.appendUTF8(record.target)
        line.append(0x20)
        line.appendDecimal(UInt64(record.status))
        if record.responseCut { line.appendUTF8(" (response cut)") }
        line.appendUTF8(" method=")
        appendValue(method, to: &line)
        line.appendUTF8(" path=")
        appendValue(record.target, to: &line)
        line.appendUTF8(" status=")
        line.appendDecimal(UInt64(record.status))
        line.appendUTF8(" bytes=")
        line.appendDecimal(record.bytesSent)
        line.appendUTF8(" received=")
        line.appendDecimal(record.bytesReceived)
        line.appendUTF8(" duration=")
        line.appendDecimal(record.durationMicroseconds / 1000)
        line.append(UInt8(ascii: "."))
        let fraction = record.durationMicroseconds % 1000
        line.append(0x30 + UInt8(fraction / 100))
        line.append(0x30 + UInt8(fraction / 10 % 10))
        line.append(0x30 + UInt8(fraction % 10))
        line.appendUTF8("ms client=")
        appendValue(record.client, to: &line)
        return true
    }

    /// Printable ASCII without `\`: `logEscaped` leaves such text as it is.
    private static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }
    }

    /// `LogLineFormat.quotedIfNeeded` for plain text: bare, or quoted with `"` escaped.
    private static func appendValue(_ value: String, to line: inout [UInt8]) {
        if !value.isEmpty && value.utf8.allSatisfy(isBare) {
            line.appendUTF8(value)
            return
        }
        line.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            if byte == UInt8(ascii: "\"") { line.append(UInt8(ascii: "\\")) }
            line.append(byte)
        }
        line.append(UInt8(ascii: "\""))
    }

    /// The characters `quotedIfNeeded` leaves bare.
    private static func isBare(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "+"),
            UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","):
            true
        default: false
        }
    }
}
