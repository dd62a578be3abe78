@testable import FiledropCore
@testable import FiledropHTTP

/// A log that drops every event: for tests that look at responses and storage, not the log.
struct NoLog: LogSink {
    func log(_ event: LogEvent) {}
}
