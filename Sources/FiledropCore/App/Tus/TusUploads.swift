import Synchronization

/// Every unfinished resumable upload, shared by all event loops and kept across
/// configuration reloads (the daemon makes one and hands it to each `FiledropApp`).
/// On disk each upload is a partial file and a record in a `PartialUploadArea`; here it is
/// a `TusUpload` with its offset and the lock that lets one PATCH at a time write it.
///
/// Lock order: `uploads` before any upload's `state`, never the other way round.
public final class TusUploads: Sendable {
    let area: any PartialUploadArea
    let digests: any DigestProvider
    /// Wall-clock seconds since 1970; injected so expiry tests take no real time.
    let clock: @Sendable () -> Int64
    /// A PATCH that has received nothing for this long loses its lock to a new one: a phone
    /// whose WiFi dropped cannot tell the server, whose socket waits out the body timeout,
    /// and the resumed PATCH should not have to wait for that.
    let staleWriterSeconds: Int64
    private let uploads = Mutex<[String: TusUpload]>([:])
    /// Uploads completed recently, by id, with their length: a client whose last response
    /// was lost asks HEAD again and must learn it is done rather than start over.
    private let finished = Mutex<[String: (length: UInt64, at: Int64)]>([:])
    private let nextToken = Atomic<UInt64>(1)

    /// Recovers the uploads a previous run left in `area`.
    public init(area: any PartialUploadArea, digests: any DigestProvider, staleWriterSeconds: Int64 = 10,
                clock: @escaping @Sendable () -> Int64) {
        self.area = area
        self.digests = digests
        self.clock = clock
        self.staleWriterSeconds = staleWriterSeconds
        var recovered: [String: TusUpload] = [:]
        for found in area.recover() {
            guard let record = TusRecord(decoding: found.record), TusID.isValid(found.id),
                  record.length.map({ found.size <= $0 }) ?? true else {
                area.remove(id: found.id)
                continue
            }
            recovered[found.id] = TusUpload(id: found.id, record: record, offset: found.size, lastActivity: found.modified)
        }
        uploads.withLock { $0 = recovered }
    }

    public var count: Int { uploads.withLock { $0.count } }

    func upload(_ id: String) -> TusUpload? {
        uploads.withLock { $0[id] }
    }

    /// What `lookup` found.
    enum Lookup {
        case live(TusUpload)
        /// Idle for the expiration: now marked removed; the caller deletes its files with
        /// `forget` off the loop and answers 404.
        case expired(TusUpload)
        case unknown
    }

    /// The upload `id`. One idle for `expiration` expires right here, so HEAD, PATCH and
    /// DELETE answer 404 as soon as it expires instead of waiting for the next `sweep`
    /// (which runs once a minute).
    func lookup(_ id: String, expiration: Duration) -> Lookup {
        guard let upload = upload(id) else { return .unknown }
        let now = clock()
        let seconds = expiration.components.seconds
        let expired = upload.state.withLock { state in Self.expire(&state, now: now, after: seconds) }
        return expired ? .expired(upload) : .live(upload)
    }

    /// Marks `state` removed when nothing has written to it for `seconds` (a PATCH that is
    /// still receiving keeps it); true when it did.
    private static func expire(_ state: inout TusUpload.State, now: Int64, after seconds: Int64) -> Bool {
        let idle = !state.heldByWorker && (state.writer == nil || now - state.writerActivity >= seconds)
        guard !state.removed, idle, now - state.lastActivity >= seconds else { return false }
        state.removed = true
        state.writer = nil
        return true
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
        let id = TusID.random()
        let upload = TusUpload(id: id, record: record, offset: 0, lastActivity: clock())
        try uploads.withLock { (all: inout [String: TusUpload]) throws(TusError) in
            let states = all.values.map { $0.state.withLock { ($0.record.client, $0.reserved) } }
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

    /// Checks that `storage` has `neededSpace` free, then creates the record and empty
    /// partial file of a registered upload; on failure the registration is undone.
    /// Blocking (statvfs, and the record is fsync'ed): on a worker.
    func storeNew(_ upload: TusUpload, neededSpace: UInt64, on storage: any Storage) -> TusError? {
        let record = upload.state.withLock { $0.record }
        if let available = storage.availableSpace(), available < neededSpace {
            _ = uploads.withLock { $0.removeValue(forKey: upload.id) }
            return .http(.insufficientStorage("The server's disk is too full for this upload."))
        }
        do throws(StorageError) {
            try area.create(id: upload.id, record: record.encoded())
            return nil
        } catch {
            _ = uploads.withLock { $0.removeValue(forKey: upload.id) }
            return .http(error.httpError)
        }
    }

    /// Bytes reserved by every upload but `id`: what is left of `maxPending` for it.
    func reservedByOthers(than id: String) -> UInt64 {
        uploads.withLock { all in
            all.values.filter { $0.id != id }.reduce(0) { total, upload in total + upload.state.withLock { $0.reserved } }
        }
    }

    /// Ends an upload that will not complete (termination, expiry, a refused publish): its
    /// partial file and record are deleted. The caller has marked it `removed`. Blocking
    /// (unlinking a big partial file frees its blocks): on a worker, or before serving.
    func forget(_ upload: TusUpload, reason: String) {
        _ = uploads.withLock { $0.removeValue(forKey: upload.id) }
        area.remove(id: upload.id)
        upload.state.withLock { $0.progress }?.failed(reason: reason)
    }

    /// Takes the write lock of a complete upload nobody is writing, for `publish`; nil when
    /// it is not complete or someone holds the lock (that one publishes it).
    func claimForPublishing(_ upload: TusUpload) -> UInt64? {
        let now = clock()
        return upload.state.withLock { state in
            guard !state.removed, state.isComplete, state.isFree(now: now, staleAfter: staleWriterSeconds) else { return nil }
            let token = makeToken()
            state.writer = token
            state.writerActivity = now
            state.heldByWorker = true
            return token
        }
    }

    /// Publishes a complete upload through the storage policy (names, collisions, fsync),
    /// exactly like a multipart or PUT upload. The caller holds its write lock (`token`,
    /// `heldByWorker`), so nothing else touches it meanwhile, and no mutex is held while
    /// this blocks. Blocking: on a worker, or before serving.
    ///
    /// A failure that may pass keeps the partial file and record and frees the lock, so a
    /// retry publishes it; one no retry changes deletes the upload (`TusError.publishFailure`).
    func publish(_ upload: TusUpload, token: UInt64, store: UploadStore) -> Result<StoredFile, TusError> {
        let (record, size) = upload.state.withLock { ($0.record, $0.offset) }
        let outcome: Result<StoredFile, TusError>
        do throws(TusError) {
            outcome = .success(try place(upload.id, record: record, size: size, store: store))
        } catch {
            outcome = .failure(error)
        }
        let now = clock()
        switch outcome {
        case .success(let stored):
            // Remembered before it leaves `uploads`, so a HEAD in between never sees neither.
            finished.withLock { $0[upload.id] = (size, now) }
            let progress = upload.state.withLock { state in
                state.removed = true
                state.release()
                return state.progress
            }
            _ = uploads.withLock { $0.removeValue(forKey: upload.id) }
            area.remove(id: upload.id)
            progress?.finished(stored: stored)
        case .failure(.discarded(let error)):
            upload.state.withLock { state in
                state.removed = true
                state.release()
            }
            forget(upload, reason: error.message)
        case .failure:
            upload.state.withLock { state in
                guard state.writer == token else { return }
                state.release()
                state.lastActivity = now
            }
        }
        return outcome
    }

    /// Adopts the partial file and publishes it; a refused adoption or publish has not
    /// touched the partial file unless the failure deletes the upload anyway.
    private func place(_ id: String, record: TusRecord, size: UInt64, store: UploadStore) throws(TusError) -> StoredFile {
        let directory: StoragePath
        do throws(HTTPError) {
            directory = try store.names.storagePath(fromComponents: record.directory)
        } catch {
            throw .discarded(error)
        }
        let file: any UploadFile
        do throws(StorageError) {
            file = try area.adopt(id: id, into: directory)
        } catch {
            throw TusError.publishFailure(error)
        }
        do throws(StorageError) {
            let name = try store.publishKeepingCause(file, directory: directory, name: record.name)
            return StoredFile(path: directory.appending(checkedName: name), size: size, crc32: file.crc32)
        } catch {
            let failure = TusError.publishFailure(error)
            if case .discarded = failure { file.discard() }
            throw failure
        }
    }

    /// Publishes every upload that holds all its bytes but was never saved: the daemon
    /// stopped between the last byte and the rename, or saving failed and nobody retried.
    /// Blocking: the daemon runs it before it serves. Returns how many were saved, and for
    /// each one kept for a retry its name and why, for the log.
    public func publishComplete(store: UploadStore) -> (saved: Int, kept: [(name: String, reason: String)]) {
        var saved = 0
        var kept: [(name: String, reason: String)] = []
        for upload in uploads.withLock({ Array($0.values) }) {
            guard let token = claimForPublishing(upload) else { continue }
            let record = upload.state.withLock { state in
                if state.progress == nil {
                    state.progress = store.monitor.started(name: state.record.displayName, expectedSize: state.record.length,
                                                           client: state.record.client)
                }
                return state.record
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
    /// uploads must not hold disk space forever) and forgets old completions. A PATCH in
    /// progress keeps its upload. Returns how many uploads were removed.
    @discardableResult
    public func sweep(expiration: Duration) -> Int {
        let now = clock()
        let seconds = expiration.components.seconds
        let expired = uploads.withLock { all in
            all.values.filter { upload in
                upload.state.withLock { state in Self.expire(&state, now: now, after: seconds) }
            }
        }
        for upload in expired {
            forget(upload, reason: "expired after \(DurationText.format(expiration)) without activity")
        }
        finished.withLock { all in all = all.filter { now - $0.value.at < seconds } }
        return expired.count
    }
}

/// The limits a tus request is checked against, from the configuration of the moment.
struct TusLimits: Sendable {
    var maxUploadSize: UInt64?
    /// Bytes all unfinished uploads may hold together; nil for no limit.
    var maxPending: UInt64?
    var maxPerClient: Int
    var expiration: Duration

    init(_ configuration: Configuration) {
        maxUploadSize = configuration.maxUploadSize
        maxPending = configuration.tusMaxPending
        maxPerClient = configuration.tusMaxPerClient
        expiration = configuration.tusExpiration
    }
}

/// One unfinished upload. Its state is only touched under its own lock.
final class TusUpload: Sendable {
    struct State {
        var record: TusRecord
        /// Bytes received and kept: the partial file's size outside a PATCH.
        var offset: UInt64
        /// Last creation or write, seconds since 1970: expiry counts from here.
        var lastActivity: Int64
        /// The token of the PATCH allowed to write, nil when none is.
        var writer: UInt64?
        /// When that PATCH last received bytes.
        var writerActivity: Int64 = 0
        /// Terminated, expired or completed: nothing may write any more.
        var removed = false
        /// Log and status-line entry, from the first PATCH on.
        var progress: UploadProgress?
        /// The writer's blocking work (fsync, publishing, a record save) runs on a worker:
        /// nobody takes the lock over, terminates or expires the upload until it is back, and
        /// nobody waits for it either (HEAD answers from this state).
        var heldByWorker = false

        /// Space this upload holds against `tus-max-pending`.
        var reserved: UInt64 { max(record.length ?? 0, offset) }

        /// Every byte is in: it only waits to be published.
        var isComplete: Bool { record.length == offset }

        /// Whether a new request may take the write lock: nobody holds it, or its holder
        /// went quiet while receiving (never while its work runs on a worker).
        func isFree(now: Int64, staleAfter seconds: Int64) -> Bool {
            !heldByWorker && (writer == nil || now - writerActivity >= seconds)
        }

        mutating func release() {
            writer = nil
            heldByWorker = false
        }
    }

    let id: String
    let state: Mutex<State>

    init(id: String, record: TusRecord, offset: UInt64, lastActivity: Int64) {
        self.id = id
        self.state = Mutex(State(record: record, offset: offset, lastActivity: lastActivity))
    }
}

/// Upload ids: 128 random bits as 32 lowercase hex digits, so URLs cannot be guessed.
enum TusID {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next() as UInt64, generator.next() as UInt64].map { value in
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    static func isValid(_ id: Substring) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    static func isValid(_ id: String) -> Bool { isValid(Substring(id)) }
}
