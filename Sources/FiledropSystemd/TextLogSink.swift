import FiledropCore
import FiledropHTTP

/// Readable lines for a terminal or a plain file:
/// `2026-11-30 07:00:00 info    upload finished file=a.txt size=12 client=127.0.0.1`.
/// On a terminal the level word is coloured; the colour codes are ours, user text is escaped.
public struct TextLogSink: LogSink {
    public let writer: LogLineWriter
    public let minimumLevel: LogLevel
    public let colored: Bool
    private let timestamp: @Sendable () -> String

    public init(
        writer: LogLineWriter, minimumLevel: LogLevel, colored: Bool,
        timestamp: @escaping @Sendable () -> String = LocalTimestamp.now
    ) {
        self.writer = writer
        self.minimumLevel = minimumLevel
        self.colored = colored
        self.timestamp = timestamp
    }

    public func log(_ event: LogEvent) {
        guard event.level >= minimumLevel else { return }
        writer.write(line: "\(timestamp()) \(levelText(event.level)) \(LogLineFormat.body(event))")
    }

    /// The same line as `log(record.event)`, built in one byte buffer when the record is plain ASCII.
    public func logRequest(_ record: AccessLogRecord) {
        logRequests([record])
    }

    /// The lines of `records` in one write.
    public func logRequests(_ records: [AccessLogRecord]) {
        guard AccessLogRecord.level >= minimumLevel, !records.isEmpty else { return }
        var lines: [UInt8] = []
        lines.reserveCapacity(records.count * 200)
        let time = timestamp()
        let level = levelText(AccessLogRecord.level)
        for record in records {
            let start = lines.count
            lines.appendUTF8(time)
            lines.append(0x20)
            lines.appendUTF8(level)
            lines.append(0x20)
            if !AccessLogLine.appendBody(record, to: &lines) {
                lines.removeSubrange(start...)
                lines.appendUTF8("\(time) \(level) \(LogLineFormat.body(record.event))")
            }
            lines.append(UInt8(ascii: "\n"))
        }
        writer.write(lineBytes: lines)
    }

    /// The level name padded to the longest one ("warning") so messages line up.
    private func levelText(_ level: LogLevel) -> String {
        let padding = String(repeating: " ", count: 7 - level.name.count)
        guard colored, let color = Self.colors[level] else { return level.name + padding }
        return "\u{1B}[\(color)m\(level.name)\u{1B}[0m" + padding
    }

    /// SGR codes: red, yellow, bold, dim; info stays plain.
    private static let colors: [LogLevel: String] = [.error: "31", .warning: "33", .notice: "1", .debug: "2"]
}
