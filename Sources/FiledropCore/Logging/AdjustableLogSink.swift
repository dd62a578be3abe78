import FiledropHTTP
import Synchronization

/// A sink whose least logged level can change while the daemon runs (`log-level` on
/// reload): events below it stop here, the rest go on to `destination`, which should
/// itself let everything through.
public final class AdjustableLogSink: LogSink {
    public let destination: any LogSink
    private let level: Atomic<Int>

    public init(_ destination: any LogSink, minimumLevel: LogLevel) {
        self.destination = destination
        level = Atomic(minimumLevel.rawValue)
    }

    public var minimumLevel: LogLevel {
        get { LogLevel(rawValue: level.load(ordering: .relaxed)) ?? .info }
        set { level.store(newValue.rawValue, ordering: .relaxed) }
    }

    public func log(_ event: LogEvent) {
        guard event.level >= minimumLevel else { return }
        destination.log(event)
    }

    public func logRequest(_ record: AccessLogRecord) {
        guard AccessLogRecord.level >= minimumLevel else { return }
        destination.logRequest(record)
    }

    public func logRequests(_ records: [AccessLogRecord]) {
        guard AccessLogRecord.level >= minimumLevel else { return }
        destination.logRequests(records)
    }
}
