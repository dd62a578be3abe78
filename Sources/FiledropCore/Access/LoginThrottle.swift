import Synchronization

/// Slows password guessing per client: a few wrong passwords are free, then each further
/// one locks the client out for twice as long as the one before (1 s, 2 s, 4 s ... up to
/// `maxLockout`), answered with 429 and `Retry-After` without even checking the password.
/// A correct password clears the record. Memory is bounded: at most `capacity` clients are
/// remembered, the one whose last failure is oldest is forgotten first, and a client with
/// no failure for `forgetAfter` starts afresh. Shared by every event loop, so behind a mutex;
/// times are monotonic nanoseconds passed in, so tests need no sleeping.
public final class LoginThrottle: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Wrong passwords allowed before any lockout.
        public var freeFailures: Int = 5
        /// Lockout after the first failure beyond the free ones; doubles with each further one.
        public var firstLockout: UInt64 = 1_000_000_000
        public var maxLockout: UInt64 = 15 * 60 * 1_000_000_000
        /// A client with no failure for this long is forgotten.
        public var forgetAfter: UInt64 = 60 * 60 * 1_000_000_000
        /// Clients remembered at once.
        public var capacity: Int = 4096

        public init() {}
    }

    struct Record {
        var failures: Int
        var lastFailure: UInt64
    }

    public let settings: Settings
    private let records = Mutex<[String: Record]>([:])

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Nanoseconds the client must still wait before a password is checked again; 0 when it may try now.
    public func remainingLockout(client: String, now: UInt64) -> UInt64 {
        records.withLock { records in
            guard let record = records[client] else { return 0 }
            let end = record.lastFailure &+ lockout(afterFailures: record.failures)
            return end > now ? end - now : 0
        }
    }

    /// A wrong (or malformed) password from `client`.
    public func recordFailure(client: String, now: UInt64) {
        records.withLock { records in
            if var record = records[client], now < record.lastFailure &+ settings.forgetAfter {
                record.failures += 1
                record.lastFailure = now
                records[client] = record
                return
            }
            if records[client] == nil && records.count >= settings.capacity {
                evict(&records, now: now)
            }
            records[client] = Record(failures: 1, lastFailure: now)
        }
    }

    /// The right password: the client's slate is wiped.
    public func recordSuccess(client: String) {
        _ = records.withLock { $0.removeValue(forKey: client) }
    }

    /// Clients currently remembered (for tests and the bound).
    public var rememberedClients: Int {
        records.withLock { $0.count }
    }

    /// 0 for the free failures, then `firstLockout` doubling up to `maxLockout`.
    func lockout(afterFailures failures: Int) -> UInt64 {
        let beyond = failures - settings.freeFailures
        guard beyond > 0 else { return 0 }
        guard beyond <= 40 else { return settings.maxLockout }
        let (doubled, overflow) = settings.firstLockout.multipliedReportingOverflow(by: 1 << UInt64(beyond - 1))
        return overflow ? settings.maxLockout : min(doubled, settings.maxLockout)
    }

    /// Drops forgotten clients; if none are, the one whose last failure is oldest.
    private func evict(_ records: inout [String: Record], now: UInt64) {
        let before = records.count
        records = records.filter { now < $0.value.lastFailure &+ settings.forgetAfter }
        guard records.count == before, let oldest = records.min(by: { $0.value.lastFailure < $1.value.lastFailure }) else {
            return
        }
        records.removeValue(forKey: oldest.key)
    }
}
