import Synchronization

/// Remembers for a short while which `Authorization` values were verified, so a browser
/// that sends the same credentials with every request of a page (and every file of a
/// folder) pays the deliberately slow hash check once, not each time. Only successes are
/// kept; entries are keyed by a per-process seeded hash of the header (SipHash via `Hasher`),
/// so the credentials themselves are not kept in memory. Bounded: when full, expired entries
/// go, and if none had expired, everything does.
public final class CredentialCache: Sendable {
    public let lifetime: UInt64
    public let capacity: Int
    private let entries = Mutex<[Int: UInt64]>([:])

    /// `lifetime` in nanoseconds of the monotonic clock.
    public init(lifetime: UInt64 = 60_000_000_000, capacity: Int = 256) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Whether `authorization` was verified less than `lifetime` ago.
    public func contains(_ authorization: String, now: UInt64) -> Bool {
        let key = Self.key(authorization)
        return entries.withLock { entries in
            guard let expiry = entries[key] else { return false }
            if now < expiry { return true }
            entries[key] = nil
            return false
        }
    }

    /// `authorization` was just verified.
    public func insert(_ authorization: String, now: UInt64) {
        let key = Self.key(authorization)
        entries.withLock { entries in
            if entries[key] == nil, entries.count >= capacity {
                entries = entries.filter { now < $0.value }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[key] = now &+ lifetime
        }
    }

    private static func key(_ authorization: String) -> Int {
        var hasher = Hasher()
        hasher.combine(authorization)
        return hasher.finalize()
    }
}
