import FiledropHTTP
import Synchronization

/// Uploads in progress and bytes received per client, so that one machine on the LAN can
/// neither hold every upload slot nor fill the disk alone: more than `maxActive` uploads at
/// once, or more than `hourlyQuota` bytes in an hour, are answered with 429. Shared by every
/// event loop and kept across configuration reloads (the limits are passed in per call).
/// Memory is bounded: a client is forgotten once it has no upload running and its hour is
/// over, and when more than `capacity` clients are remembered the idle ones go first.
public final class UploadCounters: Sendable {
    public static let window: UInt64 = 3600 * 1_000_000_000

    struct Usage {
        var active = 0
        var windowStart: UInt64
        var bytes: UInt64 = 0
    }

    public let capacity: Int
    private let usage = Mutex<[String: Usage]>([:])

    public init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// Takes an upload slot for `client`, or throws 429 when it has `maxActive` running, has
    /// used its quota for the hour, or declared a body (`bodyLength`) the quota's rest cannot
    /// take: such an upload is refused before it starts, not cut when it crosses the quota.
    /// `now` is monotonic nanoseconds.
    public func admit(
        client: String, maxActive: Int, hourlyQuota: UInt64?, bodyLength: UInt64? = nil,
        now: UInt64
    ) throws(HTTPError) {
        try usage.withLock { (usage) throws(HTTPError) in
            if usage[client] == nil && usage.count >= capacity { prune(&usage, now: now) }
            var entry = usage[client] ?? Usage(windowStart: now)
            if now >= entry.windowStart &+ Self.window {
                entry.windowStart = now
                entry.bytes = 0
            }
            guard entry.active < maxActive else {
                throw .tooManyRequests(
                    "You already have \(maxActive) uploads running; wait until one finishes.", retryAfterSeconds: 1)
            }
            if let hourlyQuota, entry.bytes >= hourlyQuota || (bodyLength ?? 0) > hourlyQuota - entry.bytes {
                throw Self.quotaError(hourlyQuota, windowStart: entry.windowStart, now: now)
            }
            entry.active += 1
            usage[client] = entry
        }
    }

    /// Counts received bytes against the hour's quota; throws 429 once it is exceeded.
    public func add(_ count: Int, client: String, hourlyQuota: UInt64?, now: UInt64) throws(HTTPError) {
        guard let hourlyQuota else { return }
        try usage.withLock { (usage) throws(HTTPError) in
            guard var entry = usage[client] else { return }
            entry.bytes &+= UInt64(count)
            usage[client] = entry
            if entry.bytes > hourlyQuota {
                throw Self.quotaError(hourlyQuota, windowStart: entry.windowStart, now: now)
            }
        }
    }

    /// The upload ended (stored, failed or aborted): its slot is free again.
    public func release(client: String, now: UInt64) {
        usage.withLock { usage in
            guard var entry = usage[client] else { return }
            entry.active -= 1
            if entry.active <= 0 && (entry.bytes == 0 || now >= entry.windowStart &+ Self.window) {
                usage[client] = nil
            } else {
                usage[client] = entry
            }
        }
    }

    /// Uploads running for `client` (for tests and the status line).
    public func activeUploads(client: String) -> Int {
        usage.withLock { $0[client]?.active ?? 0 }
    }

    public var rememberedClients: Int {
        usage.withLock { $0.count }
    }

    private func prune(_ usage: inout [String: Usage], now: UInt64) {
        usage = usage.filter { $0.value.active > 0 || now < $0.value.windowStart &+ Self.window }
        if usage.count >= capacity {
            usage = usage.filter { $0.value.active > 0 }
        }
    }

    private static func quotaError(_ quota: UInt64, windowStart: UInt64, now: UInt64) -> HTTPError {
        let end = windowStart &+ window
        let seconds = end > now ? (end - now + 999_999_999) / 1_000_000_000 : 1
        return .tooManyRequests(
            "You have uploaded \(ByteCount.format(quota)) this hour, the most this server accepts from one client.",
            retryAfterSeconds: seconds)
    }
}

/// Wraps an upload's body consumer so the client's slot is released exactly once, however
/// the upload ends, and every byte counts against the client's hourly quota.
final class CountedUpload: RequestBodyConsumer {
    private let upload: any RequestBodyConsumer
    private let counters: UploadCounters
    private let client: String
    private let hourlyQuota: UInt64?
    private let now: @Sendable () -> UInt64
    private var released = false

    init(
        _ upload: any RequestBodyConsumer, counters: UploadCounters, client: String, hourlyQuota: UInt64?,
        now: @escaping @Sendable () -> UInt64
    ) {
        self.upload = upload
        self.counters = counters
        self.client = client
        self.hourlyQuota = hourlyQuota
        self.now = now
    }

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        let intake = try upload.consume(bytes)
        // Only what was taken: bytes left over from a pause are offered again later.
        let taken = if case .paused(let accepted, _, _) = intake { accepted } else { bytes.count }
        try counters.add(taken, client: client, hourlyQuota: hourlyQuota, now: now())
        return intake
    }

    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        release()
        return upload.finish(trailers: trailers)
    }

    func abort() {
        release()
        upload.abort()
    }

    func failureResponse(for error: HTTPError) -> Response? {
        upload.failureResponse(for: error)
    }

    private func release() {
        guard !released else { return }
        released = true
        counters.release(client: client, now: now())
    }
}
