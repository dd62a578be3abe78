/// Severity, numbered as syslog and sd-daemon(3) `<N>` prefixes are.
public enum LogLevel: Int, Sendable, Comparable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue > rhs.rawValue }
}

/// A kind of event a person or a monitoring tool may want to find again, with a fixed
/// journald MESSAGE_ID (a 128-bit id, as systemd's catalog uses) so that `journalctl
/// MESSAGE_ID=...` finds it across versions. The engine names the request kinds; the
/// application adds its own (`LogEventKind.uploadFinished`...).
public struct LogEventKind: Hashable, Sendable {
    public let name: String
    /// nil for general messages, which have none.
    public let messageID: String?

    public init(name: String, messageID: String?) {
        self.name = name
        self.messageID = messageID
    }

    /// Anything else: no MESSAGE_ID.
    public static let general = LogEventKind(name: "general", messageID: nil)
    /// An access-log line.
    public static let request = LogEventKind(name: "request", messageID: "157b3cc65e9d4919a26447f9e6463562")
    /// The access log's summary of the requests its budget left out (`access-log-rate`).
    public static let requestsNotLogged = LogEventKind(name: "requests-not-logged", messageID: "6f7589cf8da24f63ba6d2e4f67a8b697")
}

/// One structured log line: a message plus fields (journald `FILEDROP_*` fields,
/// `key=value` in text). Pass text raw: every sink escapes control characters itself, so
/// escaping here would double backslashes.
public struct LogEvent: Sendable {
    public var level: LogLevel
    public var kind: LogEventKind
    public var message: String
    public var fields: [(key: String, value: String)]

    public init(level: LogLevel, kind: LogEventKind = .general, message: String, fields: [(key: String, value: String)] = []) {
        self.level = level
        self.kind = kind
        self.message = message
        self.fields = fields
    }
}

/// Where log events go: journald, stderr, a terminal, or a test's array.
public protocol LogSink: Sendable {
    func log(_ event: LogEvent)
    /// One access-log line. Line-based sinks format it straight into bytes (it comes once
    /// per request); the default logs `record.event`.
    func logRequest(_ record: AccessLogRecord)
    /// A batch of access-log lines, from the access log's writer thread. Line-based sinks
    /// write them in one go; the default logs each.
    func logRequests(_ records: [AccessLogRecord])
}

extension LogSink {
    public func logRequest(_ record: AccessLogRecord) {
        log(record.event)
    }

    public func logRequests(_ records: [AccessLogRecord]) {
        for record in records { logRequest(record) }
    }
}
