import FiledropHTTP

/// What the daemon does with each finished request the server reports: counts it in the
/// metrics by its route and refusal, and writes its access-log line, unless it is a passing
/// health check (a load balancer asks every second or so: a passing check is the steady
/// state and would bury the requests people make; a failing one is news and is logged).
public final class RequestRecorder: ServerObserver {
    let metrics: ServerMetrics?
    let accessLog: AccessLogQueue?

    public init(metrics: ServerMetrics?, accessLog: AccessLogQueue?) {
        self.metrics = metrics
        self.accessLog = accessLog
    }

    public func requestFinished(_ request: FinishedRequest, text: () -> RequestText) {
        let kind = RequestKind(label: request.label) ?? .other
        metrics?.requestFinished(
            kind, status: request.status, refusal: request.refusal.flatMap(RefusalReason.init(label:)),
            readBody: request.readBody, durationNanoseconds: request.durationNanoseconds)
        guard let accessLog, accessLog.isEnabled, !(kind == .health && request.status == .ok) else { return }
        accessLog.add(loop: request.loop, method: request.method, status: request.status.code) {
            let words = text()
            return AccessLogRecord(
                method: request.method, target: words.target, status: request.status.code,
                bytesSent: request.bytesSent, bytesReceived: request.bytesReceived,
                durationMicroseconds: request.durationNanoseconds / 1000, client: words.client,
                responseCut: request.responseCut)
        }
    }

    public func connectionRefused() {
        metrics?.refused(.connectionLimit)
    }
}
