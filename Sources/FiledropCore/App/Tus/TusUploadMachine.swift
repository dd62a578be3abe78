import FiledropHTTP

/// One resumable upload's life (tus.io protocol.md) as a state machine: how far it is, who
/// may write it, whether it is finished or gone. Its mutating methods are the events
/// (acquire the writer, append, finish, terminate, expire, publish); each checks the rules
/// and returns what to do, and `TusHandler`, `TusPatch` and `TusUploads` carry that out
/// (the partial file, the record, publishing). It lives behind its upload's lock
/// (`TusUpload.machine`): the lock is the rule that only one event happens at a time.
struct TusUploadMachine {
    enum Phase: Equatable {
        /// Nobody is writing.
        case idle
        /// A request holds the write lock (`token`) and receives its body; it last
        /// received bytes at `activity`.
        case receiving(token: UInt64, activity: Int64)
        /// The writer's blocking work (opening, syncing, publishing) runs on a worker: nobody
        /// takes over, terminates or expires the upload until it is back, and nobody waits
        /// for it either (HEAD answers from here).
        case working(token: UInt64)
        /// Terminated, expired or published: nothing may write any more.
        case removed
    }

    /// What a PATCH (or a creation with a body) asks for.
    struct WriteRequest {
        var token: UInt64
        var offset: UInt64
        /// creation-defer-length: the Upload-Length this request brings.
        var newLength: UInt64?
        /// Content-Length, nil when chunked.
        var bodyLength: UInt64?
    }

    /// The write lock granted: what to do on a worker before the body may be read, and how
    /// far the body may go.
    struct WriteGrant {
        var limit: SizeLimit
        /// A deferred length arrived: the record to save, and the one to restore on failure.
        var recordToSave: TusRecord?
        var previousRecord: TusRecord?
    }

    private(set) var record: TusRecord
    /// Bytes received and kept: the partial file's size outside a PATCH.
    private(set) var offset: UInt64
    /// Last creation or write, seconds since 1970: expiry counts from here.
    private(set) var lastActivity: Int64
    private(set) var phase = Phase.idle
    /// Space a deferred-length PATCH was granted beyond `offset` while it writes.
    private var writeReservation: UInt64?
    /// Log and status-line entry, from the first PATCH on.
    private(set) var progress: UploadProgress?

    init(record: TusRecord, offset: UInt64, lastActivity: Int64) {
        self.record = record
        self.offset = offset
        self.lastActivity = lastActivity
    }

    /// Space this upload holds against `tus-max-pending`.
    var reserved: UInt64 { max(record.length ?? 0, offset, writeReservation ?? 0) }

    /// Every byte is in: it only waits to be published.
    var isComplete: Bool { record.length == offset }

    var isRemoved: Bool { phase == .removed }

    /// Whether a new request may take the write lock: nobody holds it, or its holder went
    /// quiet while receiving (never while its work runs on a worker).
    func isFree(now: Int64, staleAfter seconds: Int64) -> Bool {
        switch phase {
        case .idle: true
        case .receiving(_, let activity): now - activity >= seconds
        case .working, .removed: false
        }
    }

    // MARK: Acquire the writer

    /// Checks `request` against the upload and the limits and takes the write lock for it;
    /// the upload is then `working` until `prepared` (its partial file opens on a worker).
    /// `reservedByOthers` is what every other upload holds against `maxPending`: the caller
    /// holds the registry's lock, so nothing grows it meanwhile.
    mutating func acquire(
        _ request: WriteRequest, now: Int64, staleAfter: Int64, sizeLimit: SizeLimit,
        maxPending: UInt64?, reservedByOthers: UInt64
    ) throws(TusError) -> WriteGrant {
        guard !isRemoved else { throw .notFound }
        guard isFree(now: now, staleAfter: staleAfter) else { throw .locked }
        guard request.offset == offset else { throw .offsetMismatch(current: offset) }
        var grant = WriteGrant(limit: sizeLimit)
        var length = record.length
        if let newLength = request.newLength, newLength != record.length {
            // creation-defer-length: the length arrives once and never changes.
            guard record.length == nil else { throw .badRequest("Upload-Length was already set and cannot change.") }
            guard newLength >= offset else { throw .badRequest("Upload-Length is smaller than what was already uploaded.") }
            if let maxPending, reservedByOthers + newLength > maxPending { throw .pendingSpaceFull(limit: maxPending) }
            length = newLength
        }
        if let length {
            grant.limit = SizeLimit(bytes: length, refusal: .badRequest("The body goes past Upload-Length."))
        } else if let maxPending {
            let room = maxPending > reservedByOthers ? maxPending - reservedByOthers : 0
            if room < grant.limit.bytes {
                grant.limit = SizeLimit(
                    bytes: room,
                    refusal: .insufficientStorage(
                        "Unfinished uploads already hold \(ByteCount.format(maxPending)); try again later."))
            }
        }
        if let bodyLength = request.bodyLength, offset + bodyLength > grant.limit.bytes { throw .http(grant.limit.refusal) }
        if length != record.length {
            grant.previousRecord = record
            record.length = length
            grant.recordToSave = record
        }
        // Without a length, what this body may bring is held for it, so a second deferred
        // PATCH cannot be granted the same room.
        if length == nil, maxPending != nil {
            writeReservation = request.bodyLength.map { offset + $0 } ?? grant.limit.bytes
        }
        phase = .working(token: request.token)
        return grant
    }

    /// The work before the body is done: receiving when it `succeeded`, else the lock goes
    /// back with the record as it was. Returns the offset the upload is kept at.
    mutating func prepared(token: UInt64, succeeded: Bool, previousRecord: TusRecord?, now: Int64) -> UInt64 {
        guard phase == .working(token: token) else { return offset }
        if succeeded {
            phase = .receiving(token: token, activity: now)
        } else {
            if let previousRecord { record = previousRecord }
            release()
        }
        return offset
    }

    /// Opens the log entry of the first PATCH (or of the publish after a restart).
    mutating func startProgress(on monitor: UploadMonitor) {
        if progress == nil {
            progress = monitor.started(name: record.displayName, expectedSize: record.length, client: record.client, method: .tus)
        }
    }

    // MARK: Append

    /// Whether `token` may write now: it holds the lock and the upload is still there.
    func mayWrite(_ token: UInt64) -> Bool {
        if case .receiving(token, _) = phase { return true }
        return false
    }

    /// `token` wrote bytes at `now`, up to `received`; they count at once unless a checksum
    /// must verify them first.
    mutating func wrote(_ token: UInt64, through received: UInt64, counts: Bool, now: Int64) {
        guard mayWrite(token) else { return }
        phase = .receiving(token: token, activity: now)
        lastActivity = now
        if counts { offset = received }
        progress?.advance(to: received)
    }

    // MARK: Finish

    /// The body is in: its syncing (and maybe publishing) goes to a worker. False when the
    /// writer lost the lock meanwhile.
    mutating func finish(_ token: UInt64) -> Bool {
        guard mayWrite(token) else { return false }
        phase = .working(token: token)
        return true
    }

    /// What follows a stored chunk.
    enum AfterChunk { case publish, answer }

    /// The chunk is on disk up to `offset`: a complete upload stays held for publishing,
    /// any other is free again.
    mutating func chunkStored(_ token: UInt64, through offset: UInt64, now: Int64) -> AfterChunk {
        self.offset = offset
        lastActivity = now
        if isComplete, phase == .working(token: token) { return .publish }
        release()
        return .answer
    }

    /// The chunk did not count (checksum mismatch, a failed sync): back to `offset`.
    mutating func chunkDropped(back offset: UInt64, now: Int64) {
        self.offset = offset
        lastActivity = now
        release()
    }

    /// The body will not complete. With a checksum the chunk must not count (protocol.md
    /// "Checksum"): the caller cuts the file back to the returned offset before it lets go
    /// of the lock.
    mutating func abort(_ token: UInt64, checksummed: Bool, startOffset: UInt64) -> UInt64? {
        guard mayWrite(token) else { return nil }
        release()
        guard checksummed else { return nil }
        offset = startOffset
        return startOffset
    }

    // MARK: Publish

    /// Takes the lock of a complete upload nobody is writing, for publishing.
    mutating func claimForPublishing(_ token: UInt64, now: Int64, staleAfter: Int64) -> Bool {
        guard !isRemoved, isComplete, isFree(now: now, staleAfter: staleAfter) else { return false }
        phase = .working(token: token)
        return true
    }

    /// Published, or refused for good: gone. Returns its log entry to close.
    mutating func remove() -> UploadProgress? {
        phase = .removed
        writeReservation = nil
        return progress
    }

    /// Publishing failed for a reason that may pass: kept, and free for a retry.
    mutating func publishDeferred(_ token: UInt64, now: Int64) {
        guard phase == .working(token: token) else { return }
        release()
        lastActivity = now
    }

    // MARK: Terminate and expire

    /// protocol.md "Termination". A PATCH still receiving stops at its next byte.
    mutating func terminate() throws(TusError) {
        switch phase {
        case .removed: throw .notFound
        // Being saved or having its record written right now: the client may ask again.
        case .working: throw .locked
        case .idle, .receiving: phase = .removed
        }
    }

    /// Removes the upload when nothing has written to it for `seconds` (a PATCH that is still
    /// receiving keeps it); true when it did.
    mutating func expire(now: Int64, after seconds: Int64) -> Bool {
        guard isExpired(now: now, after: seconds) else { return false }
        phase = .removed
        return true
    }

    /// Nothing has written to it for `seconds` and no PATCH is receiving.
    func isExpired(now: Int64, after seconds: Int64) -> Bool {
        !isRemoved && isFree(now: now, staleAfter: seconds) && now - lastActivity >= seconds
    }

    // MARK: Disk

    /// Takes over what the upload's files say now: another daemon on the same save
    /// directory may have written it (the offset is the partial file's size), brought its
    /// length (the record) or written to it lately (the file's mtime). Only while nobody here
    /// works on it: a writer of this daemon holds the lock on disk that keeps the others out,
    /// so its own count is the right one.
    mutating func synchronize(record: TusRecord?, offset: UInt64, modified: Int64) {
        guard phase == .idle else { return }
        if let record { self.record = record }
        self.offset = offset
        lastActivity = max(lastActivity, modified)
    }

    private mutating func release() {
        phase = .idle
        writeReservation = nil
    }
}
