import FiledropHTTP
import Synchronization

/// Whether the save directory serves what this daemon is for, for `GET /healthz`: a load
/// balancer sends a daemon no requests while this says no.
///
/// A daemon that takes uploads is healthy while an upload of one byte would be admitted and
/// could start: first the admission rule every upload meets (`UploadStore.checkRoom`, so the
/// two cannot disagree: free bytes above `min-free-space`, a disk not truly full, a free
/// inode, a mount that is not read-only), then what an upload does first: create a temporary
/// file in the save directory (`O_TMPFILE`, or a named temporary where the file system has
/// none, as on NFS) and discard it. The probe catches what statvfs cannot see (a revoked
/// permission, a stale NFS handle, an export the server made read-only); statvfs catches
/// what the probe cannot (a full disk still has room for an empty file).
///
/// A daemon in `access = read-only` takes no uploads by design, so a full or read-only disk
/// is no fault of it: it is healthy while the save directory can be read, which is all its
/// downloads need.
///
/// Both can block (a hung NFS server), so a worker runs them, never the loop
/// (`FiledropApp.healthPage`). A hung export then leaves the health check unanswered, and the
/// balancer's check timeout marks the daemon down, which is the right outcome. A result is
/// reused for `maxAge`, so checks from several balancers cost at most one probe per interval.
public final class SaveDirectoryHealth: Sendable {
    /// The save directory's state: nil when it serves, else why not (the refusal an upload
    /// would get).
    public typealias Reading = HTTPError?

    /// A second: shorter than any sensible check interval (HAProxy's default is 2 s), so
    /// each check sees a fresh result, yet a flood of checks probes once a second.
    public static let maxAge: UInt64 = 1_000_000_000

    private let store: UploadStore
    private let storage: any Storage
    private let takesUploads: Bool
    /// Monotonic nanoseconds, injected so tests control time; nil probes on every check.
    private let now: (@Sendable () -> UInt64)?
    private let last = Mutex<(at: UInt64, reading: Reading)?>(nil)

    /// `storage` is the one `store` writes to; `takesUploads` false for `access = read-only`.
    public init(store: UploadStore, storage: any Storage, takesUploads: Bool = true, now: (@Sendable () -> UInt64)?) {
        self.store = store
        self.storage = storage
        self.takesUploads = takesUploads
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
        guard takesUploads else { return readable() }
        do throws(HTTPError) {
            try store.checkRoom(for: 1)
        } catch {
            return error
        }
        do {
            let file = try storage.createUpload(in: .root, checksummed: false, durable: false)
            file.discard()
            return nil
        } catch {
            return error.httpError
        }
    }

    /// What a read-only daemon needs: the save directory itself can be looked at.
    private func readable() -> Reading {
        do {
            return try storage.metadata(.root) == nil ? StorageError.notFound.httpError : nil
        } catch {
            return error.httpError
        }
    }
}
