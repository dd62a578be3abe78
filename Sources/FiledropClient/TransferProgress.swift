import Foundation

/// Where a transfer stands: bytes done out of the total, and the recent rate. For a resumed
/// transfer `bytes` starts at the offset the server (or the partial file) already had.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes of the file transferred so far, resumed ones included.
    public var bytes: Int64
    /// The file's size; nil while unknown (a download without Content-Length).
    public var total: Int64?
    /// Bytes per second over the last few seconds; 0 until there is a measurement.
    public var bytesPerSecond: Double
    /// Bytes this run started from (the resume offset); 0 for a fresh transfer.
    public var resumedFrom: Int64

    public init(bytes: Int64, total: Int64?, bytesPerSecond: Double, resumedFrom: Int64 = 0) {
        self.bytes = bytes
        self.total = total
        self.bytesPerSecond = bytesPerSecond
        self.resumedFrom = resumedFrom
    }

    /// 0...1 when the total is known and not zero.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(bytes) / Double(total))
    }

    /// A progress callback and the `AsyncSequence` it feeds, for callers that prefer
    /// `for await progress in stream`. The stream keeps only the newest value when the
    /// reader is slow (progress is a level, not a log), and ends when `finish` is called.
    public static func makeStream() -> (
        stream: AsyncStream<TransferProgress>, report: ProgressHandler, finish: @Sendable () -> Void
    ) {
        let (stream, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return (stream, { continuation.yield($0) }, { continuation.finish() })
    }
}

/// Receives progress, from URLSession's delegate queue (not the main thread).
public typealias ProgressHandler = @Sendable (TransferProgress) -> Void

/// Turns byte counts into `TransferProgress` with a rate over a sliding window, and
/// throttles reports to a few per second so a terminal or UI is not flooded.
final class ProgressMeter: @unchecked Sendable {
    private let lock = NSLock()
    private let handler: ProgressHandler?
    private let window: TimeInterval = 3
    private let minimumInterval: TimeInterval
    private var samples: [(time: TimeInterval, bytes: Int64)] = []
    private var lastReport: TimeInterval = -.infinity
    private var resumedFrom: Int64 = 0
    private var total: Int64?

    init(handler: ProgressHandler?, minimumInterval: TimeInterval = 0.1) {
        self.handler = handler
        self.minimumInterval = minimumInterval
    }

    /// A new leg of the transfer (a fresh start or a resume) begins at `offset`.
    func start(at offset: Int64, total: Int64?) {
        lock.withLock {
            resumedFrom = offset
            self.total = total
            samples = []
        }
        update(offset, force: true)
    }

    /// The size, once a response said it.
    func setTotal(_ total: Int64?) {
        lock.withLock { self.total = total }
    }

    /// `bytes` of the file are done; `force` reports even inside the throttle interval.
    func update(_ bytes: Int64, force: Bool = false) {
        let now = ProcessInfo.processInfo.systemUptime
        let progress: TransferProgress? = lock.withLock {
            // One sample per quarter second keeps the window short whatever the chunk size.
            if force || samples.isEmpty || now - samples[samples.count - 1].time >= 0.25 {
                samples.append((now, bytes))
            }
            while let first = samples.first, now - first.time > window, samples.count > 2 { samples.removeFirst() }
            guard force || now - lastReport >= minimumInterval else { return nil }
            lastReport = now
            var rate = 0.0
            if let first = samples.first, now - first.time > 0.05 {
                rate = Double(bytes - first.bytes) / (now - first.time)
            }
            return TransferProgress(bytes: bytes, total: total, bytesPerSecond: max(0, rate), resumedFrom: resumedFrom)
        }
        if let progress { handler?(progress) }
    }
}
