import Synchronization

/// Knows every upload in progress and what happened to the finished ones: the source of
/// upload log events, the systemd status line and (later) the page's live view. Shared by
/// all event loops, so its state is behind a mutex or atomics.
public final class UploadMonitor: Sendable {
    /// A moment's view of one upload.
    public struct Snapshot: Sendable {
        public var name: String
        public var client: String
        public var received: UInt64
        public var expected: UInt64?
        /// Bytes per second since it started.
        public var rate: UInt64
    }

    private let log: any LogSink
    private let now: @Sendable () -> UInt64
    private let active = Mutex<[ObjectIdentifier: UploadProgress]>([:])
    private let storedCount = Atomic<Int>(0)
    private let failedCount = Atomic<Int>(0)
    /// Counts every upload's start and end for `/metrics`.
    public let metrics: ServerMetrics

    /// `now` returns monotonic nanoseconds.
    public init(log: any LogSink, now: @escaping @Sendable () -> UInt64, metrics: ServerMetrics = ServerMetrics(startTime: 0)) {
        self.log = log
        self.now = now
        self.metrics = metrics
    }

    public var filesStored: Int { storedCount.load(ordering: .relaxed) }
    public var uploadsFailed: Int { failedCount.load(ordering: .relaxed) }

    public func snapshot() -> [Snapshot] {
        let time = now()
        return active.withLock { Array($0.values) }.map { $0.snapshot(now: time) }.sorted { $0.name < $1.name }
    }

    func started(name: String, expectedSize: UInt64?, client: String, method: UploadMethod) -> UploadProgress {
        let progress = UploadProgress(monitor: self, name: name, client: client, expected: expectedSize, started: now(), method: method)
        active.withLock { $0[ObjectIdentifier(progress)] = progress }
        metrics.uploadStarted()
        log.log(LogEvent(level: .info, kind: .uploadStarted, message: "upload started: \(name)",
                         fields: fields(progress) + (expectedSize.map { [("expected", String($0))] } ?? [])))
        return progress
    }

    /// An upload turned away before it began (429: the client's upload slots or hourly quota):
    /// one line, and it neither started nor failed.
    func refused(name: String, client: String, error: HTTPError) {
        log.log(LogEvent(level: .notice, kind: .uploadRefused, message: "upload refused: \(name): \(error.message)",
                         fields: [("file", name), ("client", client), ("status", String(error.status.code))]))
    }

    fileprivate func ended(_ progress: UploadProgress, stored: StoredFile?, reason: String?) {
        active.withLock { $0[ObjectIdentifier(progress)] = nil }
        let snapshot = progress.snapshot(now: now())
        let rate = [("rate", "\(ByteCount.format(snapshot.rate))/s")]
        metrics.uploadEnded(progress.method, stored: stored != nil, bytes: stored?.size ?? snapshot.received)
        if let stored {
            storedCount.add(1, ordering: .relaxed)
            log.log(LogEvent(level: .info, kind: .uploadFinished,
                             message: "upload finished: \(stored.path.description) (\(ByteCount.format(stored.size)))",
                             fields: [("file", stored.path.description), ("size", String(stored.size)),
                                      ("client", progress.client)] + rate))
        } else {
            failedCount.add(1, ordering: .relaxed)
            log.log(LogEvent(level: .warning, kind: .uploadFailed,
                             message: "upload failed: \(progress.name): \((reason ?? "aborted"))",
                             fields: fields(progress) + [("received", String(snapshot.received))] + rate))
        }
    }

    private func fields(_ progress: UploadProgress) -> [(key: String, value: String)] {
        [("file", progress.name), ("client", progress.client)]
    }
}

/// One upload's live counters; written by its connection's loop, read by the status line.
final class UploadProgress: Sendable {
    private unowned let monitor: UploadMonitor
    let name: String
    let client: String
    let expected: UInt64?
    let started: UInt64
    let method: UploadMethod
    private let received = Atomic<UInt64>(0)
    private let done = Atomic<Bool>(false)

    init(monitor: UploadMonitor, name: String, client: String, expected: UInt64?, started: UInt64, method: UploadMethod) {
        self.monitor = monitor
        self.name = name
        self.client = client
        self.expected = expected
        self.started = started
        self.method = method
    }

    func advance(to bytes: UInt64) {
        received.store(bytes, ordering: .relaxed)
    }

    func finished(stored: StoredFile) {
        guard !done.exchange(true, ordering: .relaxed) else { return }
        monitor.ended(self, stored: stored, reason: nil)
    }

    func failed(reason: String) {
        guard !done.exchange(true, ordering: .relaxed) else { return }
        monitor.ended(self, stored: nil, reason: reason)
    }

    func snapshot(now: UInt64) -> UploadMonitor.Snapshot {
        let bytes = received.load(ordering: .relaxed)
        let elapsed = max(now &- started, 1)
        let rate = elapsed >= 1_000_000 ? bytes * 1_000 / (elapsed / 1_000_000) : 0
        return UploadMonitor.Snapshot(name: name, client: client, received: bytes, expected: expected, rate: rate)
    }
}
