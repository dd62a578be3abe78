/// Keeps a repeated notice to one line per burst: the first occurrence of a key logs, later
/// ones within `interval` only count, and the next line that logs says how many it stood for.
/// A flood of refused connections thus costs a line per address per interval, not one each.
public struct NoticeThrottle: Sendable {
    public let interval: UInt64
    /// Keys remembered at most; beyond it, those whose interval has passed are forgotten.
    public let capacity: Int
    private var entries: [String: Entry] = [:]

    private struct Entry: Sendable {
        var loggedAt: UInt64
        var suppressed: Int
    }

    /// `interval` in nanoseconds of the clock passed to `note`.
    public init(interval: UInt64, capacity: Int = 1024) {
        self.interval = interval
        self.capacity = capacity
    }

    /// Records an occurrence at `now`. Returns nil to stay silent, or the number of
    /// occurrences left unlogged since the key's previous line (0 for a first one).
    public mutating func note(_ key: String, now: UInt64) -> Int? {
        if var entry = entries[key] {
            if isRecent(entry, now: now) {
                entry.suppressed += 1
                entries[key] = entry
                return nil
            }
            entries[key] = Entry(loggedAt: now, suppressed: 0)
            return entry.suppressed
        }
        if entries.count >= capacity {
            entries = entries.filter { isRecent($0.value, now: now) }
        }
        // Still full of recent keys: a flood from many addresses logs, but remembers no more.
        if entries.count < capacity { entries[key] = Entry(loggedAt: now, suppressed: 0) }
        return 0
    }

    /// Within the interval of its line. Times come from several threads, each with its own
    /// idea of "now" (an event loop reads the clock once per wakeup), so one a little earlier
    /// than the line's counts as within it rather than wrapping around to "long ago".
    private func isRecent(_ entry: Entry, now: UInt64) -> Bool {
        now < entry.loggedAt || now - entry.loggedAt < interval
    }
}
