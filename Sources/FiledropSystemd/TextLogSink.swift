import FiledropCore

/// Readable lines for a terminal or a plain file:
/// `2026-11-30 07:00:00 info    upload finished file=a.txt size=12 client=127.0.0.1`.
/// On a terminal the level word is coloured; the colour codes are ours, user text is escaped.
public struct TextLogSink: LogSink {
    public let writer: LogLineWriter
    public let minimumLevel: LogLevel
    public let colored: Bool
    private let timestamp: @Sendable () -> String

    public init(writer: LogLineWriter, minimumLevel: LogLevel, colored: Bool,
                timestamp: @escaping @Sendable () -> String = LocalTimestamp.now) {
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
        guard AccessLogRecord.level >= minimumLevel else { return }
        var line: [UInt8] = []
        line.reserveCapacity(160 + 2 * record.target.utf8.count)
        line.appendUTF8(timestamp())
        line.append(0x20)
        line.appendUTF8(levelText(AccessLogRecord.level))
        line.append(0x20)
        guard AccessLogLine.appendBody(record, to: &line) else { return log(record.event) }
        line.append(UInt8(ascii: "\n"))
        writer.write(lineBytes: line)
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
