/// One served request as the access log records it. `event` is the structured form every
/// sink understands (journald's `FILEDROP_*` fields come from it); text sinks may format the
/// record directly instead, to the same line.
public struct AccessLogRecord: Sendable {
    /// The level of every access-log line: below it, records need not be built at all.
    public static let level = LogLevel.info

    public var method: HTTPMethod
    /// The request-target as sent, but for secrets in its query (`AccessLogRecord.redacted`).
    public var target: String
    public var status: Int
    /// Body bytes written (without head and chunk framing).
    public var bytesSent: UInt64
    /// Request body bytes read.
    public var bytesReceived: UInt64
    /// From the request's first byte until its response was written (or failed).
    public var durationMicroseconds: UInt64
    /// The peer address as text.
    public var client: String
    /// The connection closed before the whole response was written (the client went away, a
    /// write failed or timed out, the drain deadline passed); `bytesSent` is what went out.
    public var responseCut: Bool

    public init(
        method: HTTPMethod, target: String, status: Int, bytesSent: UInt64, bytesReceived: UInt64,
        durationMicroseconds: UInt64, client: String, responseCut: Bool
    ) {
        self.method = method
        self.target = Self.redacted(target)
        self.status = status
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.durationMicroseconds = durationMicroseconds
        self.client = client
        self.responseCut = responseCut
    }

    /// `GET /files/a.txt 200` (with ` (response cut)` when it was), and the fields
    /// method, path, status, bytes, received, duration and client.
    public var event: LogEvent {
        LogEvent(
            level: Self.level, kind: .request,
            message: "\(method) \(target) \(status)\(responseCut ? " (response cut)" : "")",
            fields: [
                ("method", method.description), ("path", target),
                ("status", String(status)), ("bytes", String(bytesSent)),
                ("received", String(bytesReceived)), ("duration", duration), ("client", client),
            ])
    }

    /// Query parameters that are secrets: LocalSend's `pin` and its per-file `token` (a
    /// capability to write a file while its session runs). Their values are logged as `-`:
    /// a log reader learns that one was sent, never what.
    static let secretParameters: Set<Substring> = ["pin", "token"]

    /// `target` with the values of `secretParameters` replaced by `-`.
    static func redacted(_ target: String) -> String {
        guard let question = target.firstIndex(of: "?"),
            secretParameters.contains(where: { target[question...].contains($0 + "=") })
        else { return target }
        let query = target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item in
            guard let equals = item.firstIndex(of: "="), secretParameters.contains(item[..<equals]) else { return item }
            return item[...equals] + "-"
        }
        return target[...question] + query.joined(separator: "&")
    }

    /// Milliseconds with three decimals: `12.345ms`.
    public var duration: String {
        "\(durationMicroseconds / 1000).\(String(durationMicroseconds % 1000 + 1000).dropFirst())ms"
    }
}
