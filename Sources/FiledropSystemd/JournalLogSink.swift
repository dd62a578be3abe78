import CSystemd
import FiledropCore
import FiledropHTTP
import Glibc

/// Structured entries sent straight to journald (sd_journal_sendv(3)): MESSAGE, PRIORITY,
/// SYSLOG_IDENTIFIER=filedrop, a MESSAGE_ID per event kind, and each field as
/// `FILEDROP_<KEY>`, so `journalctl FILEDROP_CLIENT=10.0.0.7` finds one client's uploads.
/// When a send fails the event goes to `fallback` instead. (A missing socket is not a
/// failure to sd_journal_sendv: it drops the entry and reports success, so `makeLogSink`
/// checks for the socket before choosing this sink.)
public struct JournalLogSink: LogSink {
    /// Where journald listens for native entries (the path libsystemd sends to).
    public static let socketPath = "/run/systemd/journal/socket"

    public let minimumLevel: LogLevel
    public let fallback: any LogSink

    public init(minimumLevel: LogLevel, fallback: any LogSink) {
        self.minimumLevel = minimumLevel
        self.fallback = fallback
    }

    public func log(_ event: LogEvent) {
        guard event.level >= minimumLevel else { return }
        if send(event) < 0 {
            fallback.log(event)
        }
    }

    /// The entry `log(record.event)` sends, the event built only when its level is logged at all.
    public func logRequest(_ record: AccessLogRecord) {
        guard AccessLogRecord.level >= minimumLevel else { return }
        log(record.event)
    }

    /// Sends one entry; 0 on success, a negative errno otherwise.
    func send(_ event: LogEvent) -> Int32 {
        let assignments = Self.fields(for: event).map { Array("\($0.name)=\($0.value)".utf8) }
        // One buffer holds every assignment; the iovecs point into it.
        var buffer = assignments.flatMap { $0 }
        return buffer.withUnsafeMutableBytes { bytes in
            var offset = 0
            let vectors = assignments.map { assignment in
                defer { offset += assignment.count }
                return iovec(iov_base: bytes.baseAddress! + offset, iov_len: assignment.count)
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }

    /// The journal fields for `event`, every value passed through `logEscaped`.
    static func fields(for event: LogEvent) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", event.message.logEscaped),
            ("PRIORITY", "\(event.level.rawValue)"),
            ("SYSLOG_IDENTIFIER", "filedrop"),
        ]
        if let id = event.kind.messageID {
            fields.append(("MESSAGE_ID", id))
        }
        for field in event.fields {
            fields.append((fieldName(for: field.key), field.value.logEscaped))
        }
        return fields
    }

    /// systemd.journal-fields(7): names are uppercase letters, digits and `_`, at most 64
    /// characters, not starting with `_` (reserved for trusted fields).
    static func fieldName(for key: String) -> String {
        let suffix = key.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "a"..."z": Character(String(scalar).uppercased())
            case "A"..."Z", "0"..."9": Character(scalar)
            default: "_"
            }
        }
        return String(("FILEDROP_" + String(suffix)).prefix(64))
    }
}
