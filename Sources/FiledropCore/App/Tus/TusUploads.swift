import FiledropHTTP
import Synchronization

/// Every unfinished resumable upload, shared by all event loops and kept across
/// configuration reloads (the daemon makes one and hands it to each `FiledropApp`).
/// On disk each upload is a partial file and a record in a `PartialUploadArea`; here it is
/// a `TusUpload`: its `TusUploadMachine` behind the lock that lets one event at a time in.
/// Several daemons may share one save directory: the files are the truth, and every request
/// brings its upload in line with them first (`refresh`, in `TusUploads+Disk.swift`).
///
/// Lock order: `registry` before any upload's `machine`, never the other way round.
/// Pending space (`tus-max-pending`) is accounted under `registry`'s lock: every reservation
/// that grows (a registration, a write grant) is checked and made there, so two requests
/// can never both be granted the same room.
public final class TusUploads: Sendable {
    let area: any PartialUploadArea
    let digests: any DigestProvider
    /// Wall-clock seconds since 1970; injected so expiry tests take no real time.
    let clock: @Sendable () -> Int64
    /// A PATCH that has received nothing for this long loses its lock to a new one: a phone
    /// whose WiFi dropped cannot tell the server, whose socket waits out the body timeout,
    /// and the resumed PATCH should not have to wait for that.
    let staleWriterSeconds: Int64
    /// The uploads this daemon knows, by id: made here, found at start, or found on disk
    /// when a request or the sweep asked for them (`TusUploads+Disk.swift`).
    let registry = Mutex<[String: TusUpload]>([:])
    /// Uploads completed recently, by id, with their length: a client whose last response
    /// was lost asks HEAD again and must learn it is done rather than start over.
    private let finished = Mutex<[String: (length: UInt64, at: Int64)]>([:])
    private let nextToken = Atomic<UInt64>(1)

    /// Recovers the uploads a previous run left in `area`.
    public init(
        area: any PartialUploadArea, digests: any DigestProvider, staleWriterSeconds: Int64 = 10,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.area = area
        self.digests = digests
        self.clock = clock
        self.staleWriterSeconds = staleWriterSeconds
        var recovered: [String: TusUpload] = [:]
        for found in area.recover() {
            guard let record = TusRecord(decoding: found.record), UnguessableID.isWellFormed(found.id),
                record.length.map({ found.size <= $0 }) ?? true
            else {
                area.remove(id: found.id)
                continue
            }
            let upload = TusUpload(id: found.id, record: record, offset: found.size, lastActivity: found.modified)
            upload.isOnDisk.store(true, ordering: .releasing)
            recovered[found.id] = upload
        }
        registry.withLock { $0 = recovered }
    }

    public var count: Int { registry.withLock { $0.count } }

    /// What the unfinished uploads hold, for the metrics: how many, the bytes received and
    /// kept, and the space reserved against `tus-max-pending`. Takes every upload's lock in
    /// turn: off the event loops.
    public var pending: (uploads: Int, receivedBytes: UInt64, reservedBytes: UInt64) {
        let states = registry.withLock { all in all.values.map { $0.machine.withLock { ($0.offset, $0.reserved) } } }
        return (states.count, states.reduce(0) { $0 + $1.0 }, states.reduce(0) { $0 + $1.1 })
    }

    func upload(_ id: String) -> TusUpload? {
        registry.withLock { $0[id] }
    }

    func finishedLength(_ id: String) -> UInt64? {
        finished.withLock { $0[id]?.length }
    }

    func makeToken() -> UInt64 {
        nextToken.add(1, ordering: .relaxed).newValue
    }

    /// Registers a new upload in memory after checking the per-client count and the space
    /// unfinished uploads may hold; `storeNew` then writes its record (blocking work).
    /// Registered first, so two creations at once cannot both pass the limits.
    func register(_ record: TusRecord, limits: TusLimits) throws(TusError) -> TusUpload {
        let id = UnguessableID.random()
        let upload = TusUpload(id: id, record: record, offset: 0, lastActivity: clock())
        try registry.withLock { (all: inout [String: TusUpload]) throws(TusError) in
            let states = all.values.map { $0.machine.withLock { ($0.record.client, $0.reserved) } }
            if states.filter({ $0.0 == record.client }).count >= limits.maxPerClient {
                throw .tooManyUploads(limit: limits.maxPerClient)
            }
            if let maxPending = limits.maxPending, states.reduce(0, { $0 + $1.1 }) + (record.length ?? 0) > maxPending {
                throw .pendingSpaceFull(limit: maxPending)
            }
            all[id] = upload
        }
        return upload
    }

    /// The guard before opening (the declared length must fit, as for any upload), the
    /// pending-space limit counted on disk (other daemons' uploads hold room too), then the
    /// record and empty partial file of a registered upload; on failure the registration is
    /// undone. Blocking (statvfs, a look at every record, and the record is synced): on a worker.
    func storeNew(_ upload: TusUpload, store: UploadStore, limits: TusLimits) -> TusError? {
        let record = upload.machine.withLock { $0.record }
        do throws(TusError) {
            do throws(HTTPError) { try store.checkRoom(for: record.length) } catch { throw .http(error) }
            if let maxPending = limits.maxPending, pendingOnDisk(excluding: upload.id) + (record.length ?? 0) > maxPending {
                throw .pendingSpaceFull(limit: maxPending)
            }
            do throws(StorageError) {
                try area.create(id: upload.id, record: record.encoded(), durable: store.policy.durable)
            } catch {
                throw .http(error.httpError)
            }
            upload.isOnDisk.store(true, ordering: .releasing)
            return nil
        } catch {
            _ = registry.withLock { $0.removeValue(forKey: upload.id) }
            return error
        }
    }

    /// Takes the write lock of `upload` for `request` (`TusUploadMachine.acquire`), under
    /// the registry's lock: what the others hold against `tus-max-pending` cannot grow until
    /// this request's own reservation is made.
    func acquire(
        _ upload: TusUpload, _ request: TusUploadMachine.WriteRequest, limits: TusLimits,
        sizeLimit: SizeLimit
    ) throws(TusError) -> TusUploadMachine.WriteGrant {
        let now = clock()
        return try registry.withLock { (all: inout [String: TusUpload]) throws(TusError) in
            var reservedByOthers: UInt64 = 0
            if limits.maxPending != nil {
                for other in all.values where other !== upload {
                    reservedByOthers += other.machine.withLock { $0.reserved }
                }
            }
            return try upload.machine.withLock { (machine: inout TusUploadMachine) throws(TusError) in
                try machine.acquire(
                    request, now: now, staleAfter: staleWriterSeconds, sizeLimit: sizeLimit,
                    maxPending: limits.maxPending, reservedByOthers: reservedByOthers)
            }
        }
    }

    /// Ends an upload that will not complete (termination, expiry, a refused publish): its
    /// partial file and record are deleted, and its machine is `removed` if the caller has
    /// not done so already. Logged through its upload line, or through `monitor` when this
    /// daemon never opened one. Blocking (unlinking a big partial file frees its blocks): on
    /// a worker, or before serving.
    func forget(_ upload: TusUpload, reason: String, monitor: UploadMonitor? = nil) {
        _ = registry.withLock { $0.removeValue(forKey: upload.id) }
        area.remove(id: upload.id)
        let (progress, record) = upload.machine.withLock { ($0.remove(), $0.record) }
        if let progress {
            progress.failed(reason: reason)
        } else {
            monitor?.resumableEnded(name: record.displayName, client: record.client, reason: reason)
        }
    }

    /// Takes the write lock of a complete upload nobody is writing, for `publish`; nil when
    /// it is not complete or someone holds the lock (that one publishes it).
    func claimForPublishing(_ upload: TusUpload) -> UInt64? {
        let now = clock()
        let token = makeToken()
        return upload.machine.withLock { $0.claimForPublishing(token, now: now, staleAfter: staleWriterSeconds) } ? token : nil
    }

    /// Publishes a complete upload through the storage policy (names, collisions, fsync),
    /// exactly like a multipart or PUT upload. The caller holds its write lock (`token`, the
    /// machine `working`), so nothing else touches it meanwhile, and no mutex is held while
    /// this blocks. Blocking: on a worker, or before serving.
    ///
    /// A failure that may pass keeps the partial file and record and frees the lock, so a
    /// retry publishes it; one no retry changes deletes the upload (`TusError.publishFailure`).
    ///
    /// It publishes under the upload's lock on disk (the PATCH's, or one taken here), from
    /// the partial file's real size: one that is not exactly `Upload-Length` is never
    /// published (a short one is kept at its size, a long one deleted), and logged.
    ///
    /// `synchronizedSize`: the size the caller's PATCH fsynced under its lock on disk. When the
    /// partial file is still that size and that lock is the one held (none taken here), its
    /// bytes are on disk and the publish does not sync them again.
    func publish(_ upload: TusUpload, token: UInt64, store: UploadStore, synchronizedSize: UInt64? = nil) -> Result<
        StoredFile, TusError
    > {
        let record = upload.machine.withLock { $0.record }
        let outcome: Result<StoredFile, TusError>
        var lockedHere = false
        do throws(TusError) {
            let (size, took) = try lockedSize(upload, token: token)
            lockedHere = took
            if let length = record.length, size != length {
                let oversized = size > length
                let fate = oversized ? "discarded" : "kept at byte \(size)"
                store.monitor.resumableEnded(
                    name: record.displayName, client: record.client,
                    reason: "not saved: the partial file holds \(size) bytes, Upload-Length is \(length); \(fate)")
                throw oversized ? .oversized(size: size, length: length) : .offsetMismatch(current: size)
            }
            let bytesOnDisk = !took && synchronizedSize == size
            outcome = .success(try place(upload, record: record, size: size, store: store, bytesOnDisk: bytesOnDisk))
        } catch {
            outcome = .failure(error)
        }
        if lockedHere { unlockOnDisk(upload, token: token) }
        let now = clock()
        switch outcome {
        case .success(let stored):
            // Remembered before it leaves `uploads`, so a HEAD in between never sees neither.
            finished.withLock { $0[upload.id] = (stored.size, now) }
            let progress = upload.machine.withLock { $0.remove() }
            _ = registry.withLock { $0.removeValue(forKey: upload.id) }
            area.remove(id: upload.id)
            progress?.finished(stored: stored)
        case .failure(.discarded(let error)):
            forget(upload, reason: error.message)
        case .failure(let error) where error.isOversized:
            forget(upload, reason: error.message, monitor: store.monitor)
        case .failure(.notFound):
            // Another daemon published or removed it before this one got the lock.
            upload.machine.withLock { $0.publishDeferred(token, now: now) }
            dropRemovedElsewhere(upload.id)
        case .failure:
            upload.machine.withLock { $0.publishDeferred(token, now: now) }
        }
        return outcome
    }

    /// Adopts the partial file and publishes it; a refused adoption or publish has not
    /// touched the partial file unless the failure deletes the upload anyway.
    private func place(
        _ upload: TusUpload, record: TusRecord, size: UInt64, store: UploadStore,
        bytesOnDisk: Bool
    ) throws(TusError) -> StoredFile {
        let id = upload.id
        let directory: StoragePath
        do throws(HTTPError) {
            directory = try store.names.storagePath(fromComponents: record.directory)
        } catch {
            throw .discarded(error)
        }
        let file: any UploadFile
        do throws(StorageError) {
            file = try area.adopt(id: id, into: directory, durable: store.policy.durable, bytesOnDisk: bytesOnDisk)
        } catch {
            throw TusError.publishFailure(error)
        }
        do throws(StorageError) {
            let sha256 = try contentSHA256(of: upload, size: size, store: store)
            if let sha256 { file.recordSHA256(sha256) }
            let name = try store.policy.publish(file, directory: directory, name: record.name)
            return StoredFile(path: directory.appending(checkedName: name), size: size, crc32: file.crc32, sha256: sha256)
        } catch {
            let failure = TusError.publishFailure(error)
            if case .discarded = failure { file.discard() }
            throw failure
        }
    }

    /// The SHA-256 (hex) of a complete upload, nil when hashing is off: from the running hash
    /// its PATCHes fed when it covers every byte, otherwise (a restart, a chunk cut back, a
    /// publish retried) by reading the partial file once. Blocking: on the publishing worker.
    private func contentSHA256(of upload: TusUpload, size: UInt64, store: UploadStore) throws(StorageError) -> String? {
        guard store.hashing != nil else { return nil }
        let running = upload.contentDigest.withLock { slot in
            defer { slot = nil }
            return slot
        }
        if let running, running.bytesFed == size { return SHA256Text.hex(running.finish()) }
        return SHA256Text.hex(try area.sha256(id: upload.id))
    }

    /// Publishes every upload that holds all its bytes but was never saved: the daemon
    /// stopped between the last byte and the rename, or saving failed and nobody retried.
    /// Blocking: the daemon runs it before it serves. Returns how many were saved, and for
    /// each one kept for a retry its name and why, for the log.
    public func publishComplete(store: UploadStore) -> (saved: Int, kept: [(name: String, reason: String)]) {
        var saved = 0
        var kept: [(name: String, reason: String)] = []
        for upload in registry.withLock({ Array($0.values) }) {
            guard let token = claimForPublishing(upload) else { continue }
            let record = upload.machine.withLock { machine in
                machine.startProgress(on: store.monitor)
                return machine.record
            }
            switch publish(upload, token: token, store: store) {
            case .success: saved += 1
            case .failure(.discarded): break
            case .failure(let error): kept.append((record.displayName, error.message))
            }
        }
        return (saved, kept)
    }

    /// Deletes uploads nobody has written to for `expiration` (tus "Expiration": abandoned
    /// uploads must not hold disk space forever) and forgets old completions. Looks at
    /// every upload on disk, also those of other daemons on the same save directory; a PATCH
    /// in progress, here or there, keeps its upload (it holds the lock), and an upload
    /// another daemon removed first is passed over. Returns how many uploads this call removed.
    /// Blocking (a directory walk, a stat and a small read per upload, unlinks): on a worker.
    @discardableResult
    public func sweep(expiration: Duration) -> Int {
        let now = clock()
        let seconds = expiration.components.seconds
        let known = registry.withLock { Set($0.keys) }
        var removed = 0
        for id in known.union(area.ids()).sorted() where refresh(id, expiration: expiration, monitor: nil) {
            removed += 1
        }
        finished.withLock { all in all = all.filter { now - $0.value.at < seconds } }
        return removed
    }
}

/// The tus limits a request is checked against, from the configuration of the moment (the
/// file size limit is the storage policy's).
struct TusLimits: Sendable {
    /// Bytes all unfinished uploads may hold together; nil for no limit.
    var maxPending: UInt64?
    var maxPerClient: Int
    var expiration: Duration

    init(_ configuration: Configuration) {
        maxPending = configuration.tusMaxPending
        maxPerClient = configuration.tusMaxPerClient
        expiration = configuration.tusExpiration
    }
}

/// One unfinished upload: its state machine behind its own lock.
final class TusUpload: Sendable {
    let id: String
    let machine: Mutex<TusUploadMachine>
    /// The running SHA-256 of the partial file, handed from PATCH to PATCH: valid while its
    /// `bytesFed` is the offset. Lost at a restart or when a chunk is cut back; publishing
    /// then hashes the partial file once (`TusUploads.contentSHA256`).
    let contentDigest = Mutex<(any UploadDigestStream)?>(nil)
    /// The upload's lock on disk (`PartialUploadFile.tryLock`) held by this daemon for the
    /// request `token`, and the open file that holds it; nil when this daemon holds none.
    let diskLock = Mutex<(token: UInt64, holder: DiskLockHolder)?>(nil)
    /// Its record and partial file are on disk (written, or found there). Until then a
    /// look at the disk that finds nothing must not take it for one another daemon removed.
    let isOnDisk = Atomic<Bool>(false)

    init(id: String, record: TusRecord, offset: UInt64, lastActivity: Int64) {
        self.id = id
        self.machine = Mutex(TusUploadMachine(record: record, offset: offset, lastActivity: lastActivity))
    }
}

/// The open partial file that holds an upload's lock on disk, kept in `TusUpload.diskLock`
/// so the daemon can let go of it when the request ends or is taken over.
final class DiskLockHolder: Sendable {
    // A partial file is used by one request at a time (the machine's write lock sees to
    // that, and `diskLock`'s mutex orders the hand-over), and this only ever unlocks it.
    private let heldFile: UnsafeTransfer<any PartialUploadFile>
    var file: any PartialUploadFile { heldFile.wrappedValue }

    init(_ file: any PartialUploadFile) {
        heldFile = UnsafeTransfer(file)
    }
}
