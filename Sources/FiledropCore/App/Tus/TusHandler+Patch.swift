/// tus PATCH (protocol.md "PATCH", "creation-defer-length", "Checksum"): the checks of
/// the head against the upload, its write lock, and the limits its body is held to.
extension TusHandler {
    /// protocol.md "PATCH": the body goes at Upload-Offset, which must be the current offset
    /// (409 otherwise); "creation-defer-length": a PATCH may bring the Upload-Length.
    func patch(_ head: RequestHead, id: String) throws(TusError) -> RouteDecision {
        try writable()
        guard TusHeaders.hasPatchContentType(head) else { throw .wrongContentType }
        guard let offset = try TusHeaders.integer(head, "upload-offset") else {
            throw .badRequest("A PATCH needs Upload-Offset.")
        }
        let hasBody = TusHeaders.hasBody(head)
        let upload: TusUpload
        switch uploads.lookup(id, expiration: limits.expiration) {
        case .unknown:
            // The last response of a finished upload was lost: the repeat changes nothing.
            if let length = uploads.finishedLength(id), length == offset, !hasBody {
                var headers = TusResponses.baseHeaders()
                headers.add(name: "Upload-Offset", value: String(length))
                return .respond(Response(status: .noContent, headers: headers))
            }
            throw .notFound
        case .expired(let expired):
            return removing(expired, reason: expiredReason, answer: TusError.notFound.response)
        case .live(let live):
            upload = live
        }
        let checksum = try expectedChecksum(head)
        try admit(name: upload.state.withLock { $0.record.displayName })
        // No body: the machine finishes it at once (a `Content-Length: 0` body is never read).
        return try patchConsumer(head, upload: upload, offset: offset, checksum: checksum, reply: .patched)
    }

    /// `Upload-Checksum`'s expected digest and a digest to compute it with.
    func expectedChecksum(_ head: RequestHead) throws(TusError) -> (expected: UploadChecksum, digest: any IncrementalDigest)? {
        guard let header = head.headers["upload-checksum"] else { return nil }
        let expected = try UploadChecksum(parsing: header)
        guard let digest = uploads.digests.makeDigest(algorithm: expected.algorithm) else {
            throw .badRequest("The checksum algorithm \"\(expected.algorithm.logEscaped)\" is not supported; use one of \(uploads.digests.algorithms.joined(separator: ", ")).")
        }
        return (expected, digest)
    }

    /// Checks the request against the upload and takes its write lock; the body consumer,
    /// after blocking work when the record must be saved (a deferred length arrives) or a
    /// leftover chunk cut off first.
    func patchConsumer(_ head: RequestHead, upload: TusUpload, offset: UInt64,
                               checksum: (expected: UploadChecksum, digest: any IncrementalDigest)?,
                               reply: TusPatch.Reply) throws(TusError) -> RouteDecision {
        let newLength = try TusHeaders.integer(head, "upload-length")
        if let newLength { try checkSize(newLength) }
        let bodyLength = TusHeaders.contentLength(head)
        let reservedByOthers = uploads.reservedByOthers(than: upload.id)
        let now = uploads.clock()
        let token = uploads.makeToken()
        let file: any PartialUploadFile
        do throws(StorageError) {
            file = try uploads.area.openForAppending(id: upload.id)
        } catch .notFound {
            throw .notFound
        } catch {
            throw .notStored(error, keptOffset: upload.state.withLock { $0.offset })
        }
        let (grant, preparation) = try upload.state.withLock { (state: inout TusUpload.State) throws(TusError) -> ((UInt64, HTTPError), PatchPreparation) in
            guard !state.removed else { throw .notFound }
            guard state.isFree(now: now, staleAfter: uploads.staleWriterSeconds) else { throw .locked }
            guard offset == state.offset else { throw .offsetMismatch(current: state.offset) }
            var preparation = PatchPreparation()
            if let newLength, newLength != state.record.length {
                try checkNewLength(newLength, state: state, reservedByOthers: reservedByOthers)
                // Set now, undone if saving fails: the lock keeps everyone else out meanwhile.
                preparation.previousRecord = state.record
                state.record.length = newLength
                preparation.recordToSave = state.record
            }
            let grant = writeLimit(state.record.length, reservedByOthers: reservedByOthers)
            if let bodyLength, offset + bodyLength > grant.0 {
                if let previous = preparation.previousRecord { state.record = previous }
                throw .http(grant.1)
            }
            // Left over from a PATCH that lost its lock or failed its checksum.
            if file.size != state.offset { preparation.truncateTo = state.offset }
            state.writer = token
            state.writerActivity = now
            if state.progress == nil {
                state.progress = store.monitor.started(name: state.record.displayName, expectedSize: state.record.length, client: state.record.client)
            }
            if preparation.needsWork { state.heldByWorker = true }
            return (grant, preparation)
        }
        let lease = TusWriteLease(token: token, file: file, offset: offset, limit: grant.0, limitError: grant.1, checksum: checksum)
        let makeConsumer = { [uploads, store, limits] in
            TusPatch(upload: upload, uploads: uploads, store: store, lease: lease, expiration: limits.expiration, reply: reply)
        }
        guard preparation.needsWork else { return .readBody(makeConsumer()) }
        let area = uploads.area
        return .blocking("tus prepare", skippableWhenAbandoned: false, { () -> StorageError? in
            do throws(StorageError) {
                if let size = preparation.truncateTo { try file.truncate(to: size) }
                if let record = preparation.recordToSave { try area.saveRecord(id: upload.id, record.encoded()) }
                return nil
            } catch {
                return error
            }
        }) { failure in
            let kept: UInt64 = upload.state.withLock { state in
                state.heldByWorker = false
                if failure != nil {
                    if let previous = preparation.previousRecord { state.record = previous }
                    state.writer = nil
                }
                return state.offset
            }
            if let failure { return .respond(TusError.notStored(failure, keptOffset: kept).response) }
            return .readBody(makeConsumer())
        }
    }

    /// creation-defer-length: the length arrives once and never changes.
    fileprivate func checkNewLength(_ length: UInt64, state: TusUpload.State, reservedByOthers: UInt64) throws(TusError) {
        guard state.record.length == nil else { throw .badRequest("Upload-Length was already set and cannot change.") }
        guard length >= state.offset else { throw .badRequest("Upload-Length is smaller than what was already uploaded.") }
        if let maxPending = limits.maxPending, reservedByOthers + length > maxPending {
            throw .pendingSpaceFull(limit: maxPending)
        }
    }

    /// How far the body may go: Upload-Length when known, else the size and pending limits.
    fileprivate func writeLimit(_ length: UInt64?, reservedByOthers: UInt64) -> (UInt64, HTTPError) {
        if let length {
            return (length, .badRequest("The body goes past Upload-Length."))
        }
        var limit = limits.maxUploadSize ?? .max
        var error = HTTPError.contentTooLarge(limit: limit)
        if let maxPending = limits.maxPending {
            let room = maxPending > reservedByOthers ? maxPending - reservedByOthers : 0
            if room < limit {
                limit = room
                error = .insufficientStorage("Unfinished uploads already hold \(ByteCount.format(maxPending)); try again later.")
            }
        }
        return (limit, error)
    }
}

/// What a PATCH needs done on a worker before its body may be read.
private struct PatchPreparation {
    /// A deferred length arrived: the record with it, and the one to restore on failure.
    var recordToSave: TusRecord?
    var previousRecord: TusRecord?
    /// A leftover chunk to cut off, back to the upload's offset.
    var truncateTo: UInt64?

    var needsWork: Bool { recordToSave != nil || truncateTo != nil }
}
