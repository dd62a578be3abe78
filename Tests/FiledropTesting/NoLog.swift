@testable import FiledropCore

/// A log that drops every event: for tests that look at responses and storage, not the log.
struct NoLog: LogSink {
    func log(_ event: LogEvent) {}
}
