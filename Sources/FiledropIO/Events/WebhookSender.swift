import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc

/// notify-url: one POST per finished file, from a thread of its own (`webhook`), retried
/// with `RetrySchedule` (backoff with jitter, 5xx and network errors only), then one warning
/// line. Notices wait on disk meanwhile (`PendingRunQueue`, `.filedrop-webhooks` in the save
/// directory), each with its attempts and the time of its next one, so none is skipped and a
/// restart resumes them; one failing notice waits for its next attempt without holding up the others.
public final class WebhookSender: UploadEventConsumer, @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        public var target: NotifyTarget
        public var format: NotifyTarget.Format
        public var baseURL: String?
        /// The server's title, which names it in an ntfy notification.
        public var title: String
        /// Where the pending notices' folder is.
        public var saveDirectory: String
        /// Pending notices are fsync'ed to disk (the `fsync` key).
        public var durable: Bool
        /// The save directory's reserve (`min-free-space`).
        public var minFreeSpace: UInt64

        public init(
            target: NotifyTarget, format: NotifyTarget.Format, baseURL: String?, title: String, saveDirectory: String = "",
            durable: Bool = true, minFreeSpace: UInt64 = 0
        ) {
            self.target = target
            self.format = format
            self.baseURL = baseURL
            self.title = title
            self.saveDirectory = saveDirectory
            self.durable = durable
            self.minFreeSpace = minFreeSpace
        }
    }

    /// The pending notices' folder in the save directory.
    public static let folderName = ".filedrop-webhooks"
    /// Seconds for connecting, and for each read and write.
    static let timeout = 10.0

    public let settings: Settings
    private let schedule: RetrySchedule
    private let log: any LogSink
    private let queue: PendingRunQueue
    private let post: WebhookPost

    public init(
        settings: Settings, storage: PosixStorage, schedule: RetrySchedule = RetrySchedule(), metrics: ServerMetrics,
        log: any LogSink
    ) {
        self.settings = settings
        self.schedule = schedule
        self.log = log
        queue = PendingRunQueue(
            settings: .init(
                folderName: Self.folderName, label: "notify-url", durable: settings.durable,
                minFreeSpace: settings.minFreeSpace),
            storage: storage, metrics: metrics.webhookQueue, log: log)
        post = WebhookPost(
            target: settings.target, timeout: Self.timeout,
            tls: settings.target.secure ? WebhookPost.makeTLSContext() : nil)
        pthread_detach(
            startNamedThread("webhook") { [self] in
                while let claim = queue.next() { send(claim) }
            })
    }

    public func deliver(_ events: [UploadEvent]) {
        queue.add(events.filter { $0.kind == .finished })
    }

    public func finish() {
        queue.close()
    }

    /// At shutdown: no new attempts; the one under way gets until `deadline` (monotonic nanoseconds).
    public func stop(deadline: UInt64) {
        queue.close()
        let (underWay, inMemory) = queue.waitForRunsUnderWay(deadline: deadline)
        PendingRunQueue.logStop(label: "notify-url", underWay: underWay, inMemory: inMemory, waiting: queue.depth, log: log)
    }

    /// One attempt; the notice is done, or waits on disk for its next attempt.
    private func send(_ claim: PendingRunQueue.Claim) {
        let event = claim.run.event
        let attempt = claim.run.attempts + 1
        let request = WebhookRequest(
            event: event, format: settings.target.resolved(settings.format), baseURL: settings.baseURL,
            title: settings.title)
        let result = post.send(request)
        let status = try? result.get()
        switch RetrySchedule.verdict(status: status) {
        case .delivered:
            log.log(
                LogEvent(
                    level: .info, message: "notify-url told of \(event.path) (HTTP \(status ?? 0), attempt \(attempt))",
                    fields: [("file", event.path), ("status", String(status ?? 0)), ("attempt", String(attempt))]))
            queue.done(claim)
        case .giveUp:
            giveUp(event, attempt: attempt, reason: "HTTP \(status ?? 0)")
            queue.done(claim)
        case .retry:
            let reason = status.map { "HTTP \($0)" } ?? (result.failureReason ?? "no answer")
            guard let delay = schedule.delay(after: attempt, random: Double.random(in: 0..<1)) else {
                giveUp(event, attempt: attempt, reason: reason)
                queue.done(claim)
                return
            }
            log.log(
                LogEvent(
                    level: .info,
                    message: "notify-url attempt \(attempt) for \(event.path) failed: \(reason); "
                        + "trying again in \(delay) ms", fields: [("file", event.path), ("attempt", String(attempt))]))
            let due = Clock.wallClockNanoseconds() / 1_000_000 + Int64(min(delay, 3_600_000))
            queue.retry(claim, as: PendingRun(event: event, attempts: attempt, notBefore: due))
        }
    }

    private func giveUp(_ event: UploadEvent, attempt: Int, reason: String) {
        log.log(
            LogEvent(
                level: .warning, message: "notify-url not told of \(event.path) after \(attempt) attempt(s): \(reason)",
                fields: [("file", event.path), ("attempt", String(attempt)), ("url", settings.target.text)]))
    }
}

extension Result where Failure == WebhookPost.Failure {
    fileprivate var failureReason: String? {
        if case .failure(let failure) = self { return failure.reason }
        return nil
    }
}
