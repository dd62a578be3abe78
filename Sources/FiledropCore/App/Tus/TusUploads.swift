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

    /// The upload `id`, nil when there is none or when it has been idle for `expiration`:
    /// an expired upload is deleted right here, so HEAD, PATCH and DELETE answer 404 as
    /// soon as it expires instead of waiting for the next `sweep` (which runs once a minute).
    func liveUpload(_ id: String, expiration: Duration) -> TusUpload? {
        guard let upload = upload(id) else { return nil }
        let now = clock()
        let seconds = expiration.components.seconds
        let expired = upload.state.withLock { state in Self.expire(&state, now: now, after: seconds) }
        guard expired else { return upload }
        forget(upload, reason: "expired after \(DurationText.format(expiration)) without activity")
        return nil
    }

    /// Marks `state` removed when nothing has written to it for `seconds` (a PATCH that is
    /// still receiving keeps it); true when it did.
    private static func expire(_ state: inout TusUpload.State, now: Int64, after seconds: Int64) -> Bool {
        let idle = state.writer == nil || now - state.writerActivity >= seconds
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

    /// Registers a new upload after checking the per-client count and the space unfinished
    /// uploads may hold, then creates its record and empty partial file.
    func create(_ record: TusRecord, limits: TusLimits) throws(TusError) -> TusUpload {
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
        do {
            try area.create(id: id, record: record.encoded())
        } catch {
            _ = uploads.withLock { $0.removeValue(forKey: id) }
            throw .http(error.httpError)
        }
        return upload
    }

    /// Bytes reserved by every upload but `id`: what is left of `maxPending` for it.
    func reservedByOthers(than id: String) -> UInt64 {
        uploads.withLock { all in
            all.values.filter { $0.id != id }.reduce(0) { total, upload in total + upload.state.withLock { $0.reserved } }
        }
    }

    /// Ends an upload that will not complete (termination, expiry, failed publish): its
    /// partial file and record are deleted. The caller has marked it `removed`.
    func forget(_ upload: TusUpload, reason: String) {
        _ = uploads.withLock { $0.removeValue(forKey: upload.id) }
        area.remove(id: upload.id)
        upload.state.withLock { $0.progress }?.failed(reason: reason)
    }

    /// Publishes a complete upload through the storage policy (names, collisions, fsync),
    /// exactly like a multipart or PUT upload. The caller has marked it `removed`, so no
    /// PATCH can write to it any more.
    func complete(_ upload: TusUpload, store: UploadStore) throws(HTTPError) -> StoredFile {
        let (record, size, progress) = upload.state.withLock { ($0.record, $0.offset, $0.progress) }
        let stored: StoredFile
        do throws(HTTPError) {
            let directory = try store.names.storagePath(fromComponents: record.directory)
            let file: any UploadFile
            do {
                file = try area.adopt(id: upload.id, into: directory)
            } catch {
                throw error.httpError
            }
            do throws(HTTPError) {
                let name = try store.publish(file, directory: directory, name: record.name)
                stored = StoredFile(path: directory.appending(checkedName: name), size: size, crc32: file.crc32)
            } catch {
                file.discard()
                throw error
            }
        } catch {
            forget(upload, reason: error.message)
            throw error
        }
        _ = uploads.withLock { $0.removeValue(forKey: upload.id) }
        area.remove(id: upload.id)
        finished.withLock { $0[upload.id] = (size, clock()) }
        progress?.finished(stored: stored)
        return stored
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

        /// Space this upload holds against `tus-max-pending`.
        var reserved: UInt64 { max(record.length ?? 0, offset) }
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
