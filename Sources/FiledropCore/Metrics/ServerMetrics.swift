import FiledropHTTP
import Synchronization

/// The daemon's counters for `GET /metrics`, shared by every event loop and kept across
/// configuration reloads. Each count is an atomic of its own, bumped with relaxed ordering
/// where the thing happens; a scrape reads them one by one and never stops a loop (a
/// scrape may see one counter a moment later than another, as Prometheus expects).
public final class ServerMetrics: Sendable {
    /// Upper bounds of the request-duration buckets, in seconds: from a cached page (about a
    /// millisecond) to a large upload over WiFi (minutes).
    public static let durationBuckets: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

    /// Wall-clock seconds since 1970 when the process started (`process_start_time_seconds`).
    public let startTime: Int64
    /// By method, then result.
    private let uploads: [[Counter]]
    private let uploadBytes: [[Counter]]
    private let activeUploadCount = Atomic<Int>(0)
    /// By `RefusalReason.allCases` index.
    private let refusals: [Counter]
    /// By `RequestKind.allCases` index.
    private let durations: [DurationHistogram]
    private let hookRuns = Counter()
    private let hookFailures = Counter()
    private let hookTimeouts = Counter()
    /// The on-upload hook's queue of pending runs on disk.
    public let hookQueue = RunQueueMetrics()
    /// The webhook's (notify-url) queue of pending notices on disk.
    public let webhookQueue = RunQueueMetrics()
    /// Reads the server's open connections; set once the server exists (`observeConnections`).
    private let connectionCount = Mutex<(@Sendable () -> Int)?>(nil)

    public init(startTime: Int64) {
        self.startTime = startTime
        uploads = UploadMethod.allCases.map { _ in UploadResult.allCases.map { _ in Counter() } }
        uploadBytes = UploadMethod.allCases.map { _ in UploadResult.allCases.map { _ in Counter() } }
        refusals = RefusalReason.allCases.map { _ in Counter() }
        durations = RequestKind.allCases.map { _ in DurationHistogram(bounds: Self.durationBuckets) }
    }

    // MARK: - Counting

    /// An upload opened its file (`UploadMonitor.started`).
    func uploadStarted() {
        activeUploadCount.add(1, ordering: .relaxed)
    }

    /// An upload that started was stored or failed after `bytes` arrived.
    func uploadEnded(_ method: UploadMethod, stored: Bool, bytes: UInt64) {
        activeUploadCount.subtract(1, ordering: .relaxed)
        count(method, stored ? .stored : .failed, bytes: bytes)
    }

    /// A request that would have uploaded was turned away before any byte was read.
    func uploadRefused(_ method: UploadMethod) {
        count(method, .refused, bytes: 0)
    }

    private func count(_ method: UploadMethod, _ result: UploadResult, bytes: UInt64) {
        let (m, r) = (Self.index(of: method), Self.index(of: result))
        uploads[m][r].add(1)
        uploadBytes[m][r].add(bytes)
    }

    /// A request's response was written (or cut off): its duration from its first byte, and
    /// the refusal when its status is an error. `readBody`: the route took the body, so an
    /// upload the request carried was not refused (it started, or failed on its own terms).
    public func requestFinished(
        _ kind: RequestKind, status: HTTPStatus, refusal: RefusalReason?, readBody: Bool,
        durationNanoseconds: UInt64
    ) {
        // The duration last: a scrape that sees the request's duration sees its refusal too.
        if let reason = refusal ?? RefusalReason(status: status) {
            refused(reason)
            if !readBody, let method = kind.uploadMethod { uploadRefused(method) }
        }
        durations[Self.index(of: kind)].observe(nanoseconds: durationNanoseconds)
    }

    /// A refusal outside any request: a connection answered 503 as it was accepted.
    public func refused(_ reason: RefusalReason) {
        refusals[Self.index(of: reason)].add(1)
    }

    /// The `on-upload` hook ran to `outcome`: every run counts in `filedrop_hook_runs_total`,
    /// failures and timeouts also in their own.
    public func hookFinished(outcome: HookOutcome) {
        hookRuns.add(1)
        switch outcome {
        case .succeeded: break
        case .failed: hookFailures.add(1)
        case .timedOut: hookTimeouts.add(1)
        }
    }

    /// Where the open-connection gauge reads from (the HTTP server, made after this).
    public func observeConnections(_ read: @escaping @Sendable () -> Int) {
        connectionCount.withLock { $0 = read }
    }

    // MARK: - Reading

    public var activeUploads: Int { activeUploadCount.load(ordering: .relaxed) }
    public var activeConnections: Int? { connectionCount.withLock { $0 }?() }

    public func uploads(_ method: UploadMethod, _ result: UploadResult) -> UInt64 {
        uploads[Self.index(of: method)][Self.index(of: result)].value
    }

    public func uploadBytes(_ method: UploadMethod, _ result: UploadResult) -> UInt64 {
        uploadBytes[Self.index(of: method)][Self.index(of: result)].value
    }

    public func refusals(_ reason: RefusalReason) -> UInt64 {
        refusals[Self.index(of: reason)].value
    }

    public func durations(_ kind: RequestKind) -> DurationHistogram.Reading {
        durations[Self.index(of: kind)].reading
    }

    public var hooks: (runs: UInt64, failures: UInt64, timeouts: UInt64) {
        (hookRuns.value, hookFailures.value, hookTimeouts.value)
    }

    /// The labels in table order, made once: `allCases` builds a new array at every call,
    /// and a lookup runs for every request.
    private static let methods = UploadMethod.allCases
    private static let results = UploadResult.allCases
    private static let reasons = RefusalReason.allCases
    private static let kinds = RequestKind.allCases

    private static func index(of method: UploadMethod) -> Int { methods.firstIndex(of: method)! }
    private static func index(of result: UploadResult) -> Int { results.firstIndex(of: result)! }
    private static func index(of reason: RefusalReason) -> Int { reasons.firstIndex(of: reason)! }
    private static func index(of kind: RequestKind) -> Int { kinds.firstIndex(of: kind)! }
}

/// One monotonically growing count.
final class Counter: Sendable {
    private let count = Atomic<UInt64>(0)

    func add(_ amount: UInt64) {
        count.wrappingAdd(amount, ordering: .relaxed)
    }

    var value: UInt64 { count.load(ordering: .relaxed) }
}

/// Request durations in fixed buckets, each counted on its own (cumulated when read), with
/// the sum in nanoseconds so adding never rounds.
public final class DurationHistogram: Sendable {
    public struct Reading: Sendable, Equatable {
        /// Cumulative: requests that took at most each bound, in `bounds` order.
        public var cumulativeCounts: [UInt64]
        public var count: UInt64
        public var sumNanoseconds: UInt64
    }

    public let bounds: [Double]
    private let boundsNanoseconds: [UInt64]
    /// Requests that fell in each bucket alone; the last one is over every bound.
    private let buckets: [Counter]
    private let sum = Counter()

    init(bounds: [Double]) {
        self.bounds = bounds
        boundsNanoseconds = bounds.map { UInt64($0 * 1_000_000_000) }
        buckets = (0...bounds.count).map { _ in Counter() }
    }

    func observe(nanoseconds: UInt64) {
        let bucket = boundsNanoseconds.firstIndex { nanoseconds <= $0 } ?? boundsNanoseconds.count
        buckets[bucket].add(1)
        sum.add(nanoseconds)
    }

    public var reading: Reading {
        var running: UInt64 = 0
        let cumulative = buckets.map { bucket in
            running &+= bucket.value
            return running
        }
        return Reading(cumulativeCounts: Array(cumulative.dropLast()), count: cumulative.last ?? 0, sumNanoseconds: sum.value)
    }
}
