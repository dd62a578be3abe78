/// Decides when a file in a watched folder has stopped changing: its size and modification
/// time stayed the same for `settle` nanoseconds of observations. A file being written, or
/// copied in slowly, keeps moving and is never ready meanwhile. Sans-I/O: the caller stats
/// the files and passes the time in.
public struct SettleTracker: Sendable {
    /// What a stat said about one file.
    public struct Observation: Sendable, Equatable {
        public var size: Int64
        /// Modification time in nanoseconds since the epoch.
        public var modified: Int64

        public init(size: Int64, modified: Int64) {
            self.size = size
            self.modified = modified
        }
    }

    private struct Candidate {
        var observation: Observation
        var unchangedSince: UInt64
    }

    public let settle: UInt64
    private var candidates: [String: Candidate] = [:]

    public init(settle: UInt64) {
        self.settle = settle
    }

    public var pending: [String] { candidates.keys.sorted() }

    /// Records a stat of `name` at `now` (monotonic nanoseconds).
    public mutating func observe(_ name: String, _ observation: Observation, now: UInt64) {
        if let known = candidates[name], known.observation == observation { return }
        candidates[name] = Candidate(observation: observation, unchangedSince: now)
    }

    /// The file went away (deleted, renamed out): nothing to send.
    public mutating func forget(_ name: String) {
        candidates[name] = nil
    }

    /// Names unchanged for `settle` by `now`, in name order; they leave the tracker.
    public mutating func takeReady(now: UInt64) -> [(name: String, observation: Observation)] {
        let ready = candidates.filter { now >= $0.value.unchangedSince && now - $0.value.unchangedSince >= settle }
            .map { (name: $0.key, observation: $0.value.observation) }
            .sorted { $0.name < $1.name }
        for entry in ready { candidates[entry.name] = nil }
        return ready
    }

    /// Nanoseconds until the next candidate may be ready; nil when there is none.
    public func nextDeadline(now: UInt64) -> UInt64? {
        candidates.values.map { $0.unchangedSince + settle > now ? $0.unchangedSince + settle - now : 0 }.min()
    }
}
