import FiledropHTTP
import Synchronization

/// Knows every upload in progress and what happened to the finished ones: the source of
/// upload log events, the systemd status line and the event stream (`UploadEvent`: the
/// on-upload hook, the webhook). Shared by all event loops, so its state is behind a mutex
/// or atomics. The one place every upload and file event is made: a new kind (a rename)
/// is one more method here beside `deleted`.
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
    private let nextUploadID = Atomic<UInt64>(1)
    /// Where the event stream goes; nil makes no events (and costs nothing per write).
    let events: (any UploadEventSink)?
    private let wallClock: @Sendable () -> Int64

    /// A progress record at most this often per upload (nanoseconds): the stream tells
    /// how far an upload got, not of every write.
    static let progressInterval: UInt64 = 1_000_000_000

    /// `now` returns monotonic nanoseconds, `wallClock` seconds since 1970 (the events' time).
    public init(
        log: any LogSink, now: @escaping @Sendable () -> UInt64, wallClock: @escaping @Sendable () -> Int64 = { 0 },
        events: (any UploadEventSink)? = nil, metrics: ServerMetrics = ServerMetrics(startTime: 0)
    ) {
        self.log = log
        self.now = now
        self.wallClock = wallClock
        self.events = events
        self.metrics = metrics
    }

    public var filesStored: Int { storedCount.load(ordering: .relaxed) }
    fileprivate func monotonicNow() -> UInt64 { now() }
    public var uploadsFailed: Int { failedCount.load(ordering: .relaxed) }

    public func snapshot() -> [Snapshot] {
        let time = now()
        return active.withLock { Array($0.values) }.map { $0.snapshot(now: time) }.sorted { $0.name < $1.name }
    }

    func started(name: String, expectedSize: UInt64?, client: String, method: UploadMethod) -> UploadProgress {
        let progress = UploadProgress(
            monitor: self, id: nextUploadID.add(1, ordering: .relaxed).oldValue, name: name,
            client: client, method: method, expected: expectedSize, started: now())
        active.withLock { $0[ObjectIdentifier(progress)] = progress }
        metrics.uploadStarted()
        log.log(
            LogEvent(
                level: .info, kind: .uploadStarted, message: "upload started: \(name)",
                fields: fields(progress) + (expectedSize.map { [("expected", String($0))] } ?? [])))
        publish(.started, progress, path: name, size: 0)
        return progress
    }

    /// A stored file was deleted (DELETE with allow-delete): the `deleted` event. `path` is
    /// below the save directory.
    public func deleted(path: StoragePath, client: String) {
        events?.publish(
            UploadEvent(
                kind: .deleted, uploadID: 0, path: path.description, size: 0, client: client,
                method: nil, time: wallClock()))
    }

    /// Called by `advance` at most every `progressInterval`.
    fileprivate func progressed(_ progress: UploadProgress, received: UInt64) {
        publish(.progress, progress, path: progress.name, size: received)
    }

    private func publish(
        _ kind: UploadEvent.Kind, _ progress: UploadProgress, path: String, size: UInt64,
        reason: String? = nil, sha256: String? = nil
    ) {
        events?.publish(
            UploadEvent(
                kind: kind, uploadID: progress.id, path: path, size: size, expectedSize: progress.expected,
                client: progress.client, method: progress.method, time: wallClock(), reason: reason,
                sha256: sha256))
    }

    /// An upload turned away before it began (429: the client's upload slots or hourly quota):
    /// one line, and it neither started nor failed.
    func refused(name: String, client: String, error: HTTPError) {
        log.log(
            LogEvent(
                level: .notice, kind: .uploadRefused, message: "upload refused: \(name): \(error.message)",
                fields: [("file", name), ("client", client), ("status", String(error.status.code))]))
    }

    /// A resumable upload this daemon never received bytes for (so no upload line is open)
    /// was removed or refused at publishing: one line, saying why. Another daemon on the same
    /// save directory may have received it.
    func resumableEnded(name: String, client: String, reason: String) {
        log.log(
            LogEvent(
                level: .warning, kind: .uploadFailed, message: "upload failed: \(name): \(reason)",
                fields: [("file", name), ("client", client)]))
    }

    fileprivate func ended(_ progress: UploadProgress, stored: StoredFile?, reason: String?) {
        active.withLock { $0[ObjectIdentifier(progress)] = nil }
        let snapshot = progress.snapshot(now: now())
        let rate = [("rate", "\(ByteCount.format(snapshot.rate))/s")]
        metrics.uploadEnded(progress.method, stored: stored != nil, bytes: stored?.size ?? snapshot.received)
        if let stored {
            storedCount.add(1, ordering: .relaxed)
            log.log(
                LogEvent(
                    level: .notice, kind: .uploadFinished,
                    message: "upload finished: \(stored.path.description) (\(ByteCount.format(stored.size)))",
                    fields: [
                        ("file", stored.path.description), ("size", String(stored.size)),
                        ("client", progress.client),
                    ] + rate))
            publish(.finished, progress, path: stored.path.description, size: stored.size, sha256: stored.sha256)
        } else {
            failedCount.add(1, ordering: .relaxed)
            log.log(
                LogEvent(
                    level: .warning, kind: .uploadFailed,
                    message: "upload failed: \(progress.name): \((reason ?? "aborted"))",
                    fields: fields(progress) + [("received", String(snapshot.received))] + rate))
            publish(.failed, progress, path: progress.name, size: snapshot.received, reason: reason ?? "aborted")
        }
    }

    private func fields(_ progress: UploadProgress) -> [(key: String, value: String)] {
        [("file", progress.name), ("client", progress.client)]
    }
}

/// One upload's live counters; written by its connection's loop, read by the status line.
final class UploadProgress: Sendable {
    private unowned let monitor: UploadMonitor
    /// Its records in the event stream carry it.
    let id: UInt64
    let name: String
    let client: String
    let method: UploadMethod
    let expected: UInt64?
    let started: UInt64
    private let received = Atomic<UInt64>(0)
    private let done = Atomic<Bool>(false)
    /// When the last progress record went out (monotonic nanoseconds).
    private let lastReported: Atomic<UInt64>

    init(
        monitor: UploadMonitor, id: UInt64, name: String, client: String, method: UploadMethod, expected: UInt64?,
        started: UInt64
    ) {
        self.monitor = monitor
        self.id = id
        self.name = name
        self.client = client
        self.method = method
        self.expected = expected
        self.started = started
        lastReported = Atomic(started)
    }

    func advance(to bytes: UInt64) {
        received.store(bytes, ordering: .relaxed)
        guard monitor.events != nil else { return }
        let time = monitor.monotonicNow()
        let last = lastReported.load(ordering: .relaxed)
        // One writer per upload (its connection's loop, or the worker tus hands it to in turn):
        // a plain load and store suffice.
        if time &- last >= UploadMonitor.progressInterval {
            lastReported.store(time, ordering: .relaxed)
            monitor.progressed(self, received: bytes)
        }
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
