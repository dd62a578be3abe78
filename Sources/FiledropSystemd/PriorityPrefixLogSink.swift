import FiledropCore

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
        guard LogLevel.info >= minimumLevel else { return }
        var line: [UInt8] = []
        line.reserveCapacity(140 + 2 * record.target.utf8.count)
        line.append(UInt8(ascii: "<"))
        line.appendDecimal(UInt64(LogLevel.info.rawValue))
        line.append(UInt8(ascii: ">"))
        guard AccessLogLine.appendBody(record, to: &line) else { return log(record.event) }
        line.append(UInt8(ascii: "\n"))
        writer.write(lineBytes: line)
    }
}
