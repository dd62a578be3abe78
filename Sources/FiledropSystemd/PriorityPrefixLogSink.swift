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
}
