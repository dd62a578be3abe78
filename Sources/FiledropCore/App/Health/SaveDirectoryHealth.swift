import Synchronization

/// Whether the save directory takes uploads now, for `GET /healthz`: a load balancer sends a
/// daemon no uploads while this says no.
///
/// The probe is what an upload does first: create a temporary file in the save directory
/// (`O_TMPFILE`, or a named temporary where the file system has none, as on NFS) and discard
/// it. A read-only mount, a revoked permission, a full inode table or a stale NFS handle
/// fails it the way it would fail an upload. `faccessat(W_OK)` or `statvfs` would read only
/// the mount's flags and the permission bits: they miss a full inode table, and over NFS they
/// answer for the client's view, not for what the server lets one write.
///
/// The probe can block (a hung NFS server), so a worker runs it, never the loop
/// (`FiledropApp.healthPage`). A hung export then leaves the health check unanswered, and the
/// balancer's check timeout marks the daemon down, which is the right outcome. A result is
/// reused for `maxAge`, so checks from several balancers cost at most one probe per interval.
public final class SaveDirectoryHealth: Sendable {
    /// The save directory's state: nil when it takes uploads, else why not.
    public typealias Reading = StorageError?

    /// A second: shorter than any sensible check interval (HAProxy's default is 2 s), so
    /// each check sees a fresh result, yet a flood of checks probes once a second.
    public static let maxAge: UInt64 = 1_000_000_000

    private let storage: any Storage
    /// Monotonic nanoseconds, injected so tests control time; nil probes on every check.
    private let now: (@Sendable () -> UInt64)?
    private let last = Mutex<(at: UInt64, reading: Reading)?>(nil)

    public init(storage: any Storage, now: (@Sendable () -> UInt64)?) {
        self.storage = storage
        self.now = now
    }

    /// On a worker: the last reading if it is younger than `maxAge`, else a new probe's.
    public func current() -> Reading {
        guard let now else { return probe() }
        let checkedAt = now()
        if let last = last.withLock({ $0 }), checkedAt &- last.at < Self.maxAge { return last.reading }
        let reading = probe()
        last.withLock { $0 = (checkedAt, reading) }
        return reading
    }

    private func probe() -> Reading {
        do {
            let file = try storage.createUpload(in: .root, checksummed: false, durable: false)
            file.discard()
            return nil
        } catch {
            return error
        }
    }
}
