import FiledropCore
import FiledropHTTP

/// Lines for stderr when it is connected to the journal: each starts with the syslog
/// priority as `<6>`, which journald reads as the entry's PRIORITY (sd-daemon(3)).
/// No timestamp: the journal records its own.
public struct PriorityPrefixLogSink: LogSink {
    public let writer: LogLineWriter
    public let minimumLevel: LogLevel

    public init(writer: LogLineWriter, minimumLevel: LogLevel) {
        self.writer = writer
        self.minimumLevel = minimumLevel
    }

    public func log(_ event: LogEvent) {
        guard event.level >= minimumLevel else { return }
        writer.write(line: "<\(event.level.rawValue)>\(LogLineFormat.body(event))")
    }

    /// The same line as `log(record.event)`, built in one byte buffer when the record is plain ASCII.
    public func logRequest(_ record: AccessLogRecord) {
        logRequests([record])
    }

    /// The lines of `records` in one write.
    public func logRequests(_ records: [AccessLogRecord]) {
        guard AccessLogRecord.level >= minimumLevel, !records.isEmpty else { return }
        var lines: [UInt8] = []
        lines.reserveCapacity(records.count * 180)
        for record in records {
            let start = lines.count
            lines.append(UInt8(ascii: "<"))
            lines.appendDecimal(UInt64(AccessLogRecord.level.rawValue))
            lines.append(UInt8(ascii: ">"))
            if !AccessLogLine.appendBody(record, to: &lines) {
                lines.removeSubrange(start...)
                lines.appendUTF8("<\(AccessLogRecord.level.rawValue)>\(LogLineFormat.body(record.event))")
            }
            lines.append(UInt8(ascii: "\n"))
        }
        writer.write(lineBytes: lines)
    }
}
