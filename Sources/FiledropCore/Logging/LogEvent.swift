/// Severity, numbered as syslog and sd-daemon(3) `<N>` prefixes are.
public enum LogLevel: Int, Sendable, Comparable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue > rhs.rawValue }
}

/// The kinds of event a person or a monitoring tool may want to find again; each has a
/// fixed journald MESSAGE_ID (a 128-bit id, as systemd's catalog uses).
public enum LogEventKind: String, Sendable {
    case request
    /// The access log's summary of the requests its budget left out (`access-log-rate`).
    case requestsNotLogged
    case started
    case stopping
    case reloaded
    case uploadStarted
    case uploadFinished
    case uploadFailed
    case uploadRefused
    case configInvalid
    case general
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
