import FiledropCore
import FiledropHTTP
import Glibc
import Synchronization

/// The text form of an event shared by the line-based sinks:
/// `upload finished file="a b.txt" size=12 client=127.0.0.1`.
enum LogLineFormat {
    /// The message and `key=value` fields, everything passed through `logEscaped`.
    static func body(_ event: LogEvent) -> String {
        var line = event.message.logEscaped
        for field in event.fields {
            line += " \(field.key.logEscaped)=\(quotedIfNeeded(field.value.logEscaped))"
        }
        return line
    }

    /// Values made only of characters that cannot be mistaken for separators stay bare;
    /// others are quoted, with `"` escaped (backslashes are already doubled by `logEscaped`).
    static func quotedIfNeeded(_ value: String) -> String {
        let bare =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_", ":", "/", "+", "@", "[", "]", ",": true
                default: false
                }
            }
        if bare { return value }
        var quoted = "\""
        for character in value {
            quoted += character == "\"" ? "\\\"" : String(character)
        }
        return quoted + "\""
    }
}

/// Local wall-clock time as `2026-11-30 07:00:00`, for text log lines.
public enum LocalTimestamp {
    /// The text of the current second, reused by every line logged within it: an access
    /// log line per request must not cost a localtime_r and six string conversions.
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))

    public static func now() -> String {
        let second = time(nil)
        if let cached = cache.withLock({ $0.second == second ? $0.text : nil }) { return cached }
        let text = format(second)
        cache.withLock { $0 = (second, text) }
        return text
    }

    private static func format(_ second: Int) -> String {
        var seconds = second
        var parts = tm()
        localtime_r(&seconds, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(twoDigits(parts.tm_mon + 1))-\(twoDigits(parts.tm_mday)) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec))"
    }
}
