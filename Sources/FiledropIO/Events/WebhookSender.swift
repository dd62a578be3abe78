import FiledropCore
import Glibc

/// notify-url: one POST per finished file, from a thread of its own (`webhook`), retried
/// with `RetrySchedule` (backoff with jitter, 5xx and network errors only), then one warning
/// line. Files wait in a bounded queue meanwhile; a full queue loses the notice with a warning.
public final class WebhookSender: UploadEventConsumer, @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        public var target: NotifyTarget
        public var format: NotifyTarget.Format
        public var baseURL: String?
        /// The server's title, which names it in an ntfy notification.
        public var title: String

        public init(target: NotifyTarget, format: NotifyTarget.Format, baseURL: String?, title: String) {
            self.target = target
            self.format = format
            self.baseURL = baseURL
            self.title = title
        }
    }

    static let queueCapacity = 1000
    /// Seconds for connecting, and for each read and write.
    static let timeout = 10.0

    public let settings: Settings
    private let schedule: RetrySchedule
    private let log: any LogSink
    private let queue = BoundedWorkQueue<UploadEvent>(capacity: queueCapacity)
    private let post: WebhookPost

    public init(settings: Settings, schedule: RetrySchedule = RetrySchedule(), log: any LogSink) {
        self.settings = settings
        self.schedule = schedule
        self.log = log
        post = WebhookPost(target: settings.target, timeout: Self.timeout,
                           tls: settings.target.secure ? WebhookPost.makeTLSContext() : nil)
        pthread_detach(startNamedThread("webhook") { [self] in
            while let event = queue.take() { send(event) }
        })
    }

    public func deliver(_ event: UploadEvent) {
        guard event.kind == .finished else { return }
        if !queue.put(event) {
            log.log(LogEvent(level: .warning, message: "notify-url not told of \(event.path): \(Self.queueCapacity) notices already waiting",
                             fields: [("file", event.path)]))
        }
    }

    public func finish() {
        queue.close()
    }

    private func send(_ event: UploadEvent) {
        let request = WebhookRequest(event: event, format: settings.target.resolved(settings.format), baseURL: settings.baseURL,
                                     title: settings.title)
        var attempt = 1
        while true {
            let result = post.send(request)
            let status = try? result.get()
            switch RetrySchedule.verdict(status: status) {
            case .delivered:
                log.log(LogEvent(level: .info, message: "notify-url told of \(event.path) (HTTP \(status ?? 0), attempt \(attempt))",
                                 fields: [("file", event.path), ("status", String(status ?? 0)), ("attempt", String(attempt))]))
                return
            case .giveUp:
                giveUp(event, attempt: attempt, reason: "HTTP \(status ?? 0)")
                return
            case .retry:
                let reason = status.map { "HTTP \($0)" } ?? (result.failureReason ?? "no answer")
                guard let delay = schedule.delay(after: attempt, random: Double.random(in: 0..<1)) else {
                    giveUp(event, attempt: attempt, reason: reason)
                    return
                }
                log.log(LogEvent(level: .info, message: "notify-url attempt \(attempt) for \(event.path) failed: \(reason); "
                    + "trying again in \(delay) ms", fields: [("file", event.path), ("attempt", String(attempt))]))
                usleep(UInt32(min(delay, 60_000) * 1000))
                attempt += 1
            }
        }
    }

    private func giveUp(_ event: UploadEvent, attempt: Int, reason: String) {
        log.log(LogEvent(level: .warning, message: "notify-url not told of \(event.path) after \(attempt) attempt(s): \(reason)",
                         fields: [("file", event.path), ("attempt", String(attempt)), ("url", settings.target.text)]))
    }
}

private extension Result where Failure == WebhookPost.Failure {
    var failureReason: String? {
        if case .failure(let failure) = self { return failure.reason }
        return nil
    }
}
