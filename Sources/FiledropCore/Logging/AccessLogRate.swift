/// How many access-log lines may be written per interval (`access-log-rate`, `1000/10s`):
/// beyond it, requests are only counted, and one summary line per interval says how many
/// went unlogged. journald drops a unit's lines at random past its own rate limit
/// (RateLimitBurst= lines per RateLimitIntervalSec=, by default 10,000 per 30 s for
/// notice and info together), uploads' lines with them; a budget well below it keeps
/// room for those.
public struct AccessLogRate: Sendable, Equatable {
    /// Lines per interval; nil writes every line.
    public var lines: Int?
    public var interval: Duration

    public static let `default` = AccessLogRate(lines: 1000, interval: .seconds(10))
    public static let unlimited = AccessLogRate(lines: nil, interval: .seconds(10))

    public init(lines: Int?, interval: Duration) {
        self.lines = lines
        self.interval = interval
    }

    /// `N/DURATION` (`1000/10s`, `50/1s`), or `unlimited`. The interval is at least a second
    /// and at most an hour, `N` at most ten million.
    public init?(parsing text: String) {
        if text.lowercased() == "unlimited" {
            self = .unlimited
            return
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty,
            parts[0].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let lines = Int(parts[0]), lines <= 10_000_000,
            let interval = DurationText.parse(String(parts[1])), interval >= .seconds(1), interval <= .seconds(3600)
        else { return nil }
        self.init(lines: lines, interval: interval)
    }

    public var text: String {
        guard let lines else { return "unlimited" }
        return "\(lines)/\(DurationText.format(interval))"
    }

    /// The interval in nanoseconds.
    public var intervalNanoseconds: UInt64 {
        let parts = interval.components
        return UInt64(parts.seconds) * 1_000_000_000 + UInt64(parts.attoseconds / 1_000_000_000)
    }
}
