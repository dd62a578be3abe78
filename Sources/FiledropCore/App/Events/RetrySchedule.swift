/// When the webhook tries again: exponential backoff with jitter (AWS's "equal jitter":
/// half the step fixed, half random), for network errors and 5xx answers only; a 4xx says
/// the request itself is wrong, and sending it again would not change that. Bounded in
/// attempts, so one dead receiver costs a known time.
public struct RetrySchedule: Sendable, Equatable {
    /// What an attempt's outcome means.
    public enum Verdict: Sendable, Equatable {
        case delivered
        case retry
        case giveUp
    }

    public var attempts: Int
    /// The step before the second attempt, in milliseconds; each later step doubles, up to `maximumDelay`.
    public var initialDelay: UInt64
    public var maximumDelay: UInt64

    public init(attempts: Int = 5, initialDelay: UInt64 = 500, maximumDelay: UInt64 = 30_000) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// `status`: the answer's status code, nil when there was none (connection refused, a
    /// timeout, a TLS failure).
    public static func verdict(status: Int?) -> Verdict {
        guard let status else { return .retry }
        switch status {
        case 200..<300: return .delivered
        case 500..<600: return .retry
        default: return .giveUp
        }
    }

    /// Milliseconds to wait after attempt `attempt` (1-based) failed, or nil when it was the
    /// last. `random` is uniform in 0..<1 (injected, so tests know the delays).
    public func delay(after attempt: Int, random: Double) -> UInt64? {
        guard attempt < attempts else { return nil }
        let step = min(maximumDelay, initialDelay << UInt64(min(attempt - 1, 30)))
        return step / 2 + UInt64(Double(step / 2) * min(max(random, 0), 0.999_999))
    }
}
