import FiledropHTTP

/// Requests left out of the access log in one interval, counted by method and status, for
/// the summary line that stands in for them:
/// `12,345 requests not logged in the last 10 s: 12,300 GET 200, 45 GET 404`.
public struct AccessLogTally: Sendable, Equatable {
    /// A method and a status. Methods that are not ours (`.other`) share one key: their
    /// tokens come from clients, and a flood of made-up ones must not grow the tally.
    public struct Key: Sendable, Hashable {
        public var method: HTTPMethod
        public var status: Int

        public init(method: HTTPMethod, status: Int) {
            self.method = method
            self.status = status
        }
    }

    /// Distinct keys counted at most; past it, requests count under `Key(.other("other"), 0)`.
    public static let maxKeys = 32
    static let overflowKey = Key(method: .other("other"), status: 0)

    public private(set) var counts: [Key: Int] = [:]

    public init() {}

    public var total: Int { counts.values.reduce(0, +) }
    public var isEmpty: Bool { counts.isEmpty }

    public mutating func count(method: HTTPMethod, status: Int, times: Int = 1) {
        var key = Key(method: method, status: status)
        if case .other = method { key.method = .other("other") }
        if counts[key] == nil && counts.count >= Self.maxKeys { key = Self.overflowKey }
        counts[key, default: 0] += times
    }

    public mutating func add(_ other: AccessLogTally) {
        for (key, times) in other.counts { count(method: key.method, status: key.status, times: times) }
    }

    /// The summary line for `interval`, at the access log's level; nil when nothing was left out.
    public func summary(interval: Duration) -> LogEvent? {
        guard !isEmpty else { return nil }
        let seconds = interval.components.seconds
        let parts = counts.sorted {
            ($0.value, $1.key.status, $1.key.method.description) > ($1.value, $0.key.status, $0.key.method.description)
        }
        .map { key, times in
            key == Self.overflowKey ? "\(Self.grouped(times)) other" : "\(Self.grouped(times)) \(key.method) \(key.status)"
        }
        let total = total
        return LogEvent(
            level: AccessLogRecord.level, kind: .requestsNotLogged,
            message: "\(Self.grouped(total)) request\(total == 1 ? "" : "s") not logged in the last \(seconds) s: "
                + parts.joined(separator: ", "),
            fields: [("not_logged", String(total)), ("interval", DurationText.format(interval))])
    }

    /// `12345` as `12,345`.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
