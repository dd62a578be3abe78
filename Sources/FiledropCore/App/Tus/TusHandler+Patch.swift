import FiledropHTTP

/// tus PATCH (protocol.md "PATCH", "creation-defer-length", "Checksum"): the head is
/// checked against the upload by its machine, which grants the write lock and the limit
/// the body is held to; the partial file opens on a worker behind the same guard as every
/// other upload.
extension TusHandler {
    /// protocol.md "PATCH": the body goes at Upload-Offset, which must be the current offset
    /// (409 otherwise); "creation-defer-length": a PATCH may bring the Upload-Length.
    /// `lockedElsewhere`: another daemon's writer held the upload's lock on disk a moment ago.
    func patch(_ head: RequestHead, id: String, lockedElsewhere: Bool) throws(TusError) -> RouteDecision {
        try writable()
        guard TusHeaders.hasPatchContentType(head) else { throw .wrongContentType }
        guard let offset = try TusHeaders.integer(head, .uploadOffset) else {
            throw .badRequest("A PATCH needs Upload-Offset.")
        }
        let hasBody = TusHeaders.hasBody(head)
        guard let upload = uploads.upload(id) else {
            // The last response of a finished upload was lost: the repeat changes nothing.
            if let length = uploads.finishedLength(id), length == offset, !hasBody {
                var headers = TusResponses.baseHeaders()
                headers.add(.uploadOffset, String(length))
                return .respond(Response(status: .noContent, headers: headers))
            }
            throw .notFound
        }
        if lockedElsewhere { throw .locked }
        let checksum = try expectedChecksum(head)
        try admit(name: upload.machine.withLock { $0.record.displayName })
        // No body: the machine finishes it at once (a `Content-Length: 0` body is never read).
        return try patchConsumer(head, upload: upload, offset: offset, checksum: checksum, reply: .patched)
    }

    /// `Upload-Checksum`'s expected digest and a digest to compute it with.
    func expectedChecksum(_ head: RequestHead) throws(TusError) -> (expected: UploadChecksum, digest: any IncrementalDigest)? {
        guard let header = head.headers[.uploadChecksum] else { return nil }
        let expected = try UploadChecksum(parsing: header)
        guard let digest = uploads.digests.makeDigest(algorithm: expected.algorithm) else {
            throw .badRequest(
                "The checksum algorithm \"\(expected.algorithm.logEscaped)\" is not supported; use one of \(uploads.digests.algorithms.joined(separator: ", "))."
            )
        }
        return (expected, digest)
    }

    /// Takes the upload's write lock for this request (`TusUploadMachine.acquire`), then on a
    /// worker: the guard before opening (the body must fit, as for any upload), the partial
    /// file opened, a leftover chunk cut off and a newly known length saved. Then the body.
    func patchConsumer(
        _ head: RequestHead, upload: TusUpload, offset: UInt64,
        checksum: (expected: UploadChecksum, digest: any IncrementalDigest)?,
        reply: TusPatch.Reply
    ) throws(TusError) -> RouteDecision {
        let newLength = try TusHeaders.integer(head, .uploadLength)
        if let newLength { try checkSize(newLength) }
        let bodyLength = TusHeaders.contentLength(head)
        let token = uploads.makeToken()
        let request = TusUploadMachine.WriteRequest(token: token, offset: offset, newLength: newLength, bodyLength: bodyLength)
        let grant = try uploads.acquire(upload, request, limits: limits, sizeLimit: store.policy.sizeLimit)
        let monitor = store.monitor
        upload.machine.withLock { $0.startProgress(on: monitor) }
        return .blocking(
            "tus open", skippableWhenAbandoned: false,
            { [uploads, store] () -> Result<any PartialUploadFile, TusError> in
                Self.open(upload, at: offset, bodyLength: bodyLength, grant: grant, token: token, uploads: uploads, store: store)
            }
        ) { [uploads, limits] opened in
            var succeeded = false
            if case .success = opened { succeeded = true }
            let kept = upload.machine.withLock { machine in
                machine.prepared(token: token, succeeded: succeeded, previousRecord: grant.previousRecord, now: uploads.clock())
            }
            switch opened {
            case .success(let file):
                let lease = TusWriteLease(token: token, file: file, offset: offset, limit: grant.limit, checksum: checksum)
                return .readBody(
                    TusPatch(
                        upload: upload, uploads: uploads, store: store, lease: lease, expiration: limits.expiration,
                        reply: reply))
            case .failure(.notStored(let error, _)):
                return .respond(TusError.notStored(error, keptOffset: kept).response)
            case .failure(let error):
                return .respond(error.response)
            }
        }
    }

    /// On a worker, holding the machine's write lock: takes the upload's lock on disk too
    /// (`.locked` when another daemon's writer holds it), held until the PATCH ends. A PATCH
    /// that brings no bytes (the retry that only publishes) has nothing to check room for.
    private static func open(
        _ upload: TusUpload, at offset: UInt64, bodyLength: UInt64?, grant: TusUploadMachine.WriteGrant,
        token: UInt64, uploads: TusUploads, store: UploadStore
    ) -> Result<any PartialUploadFile, TusError> {
        do throws(TusError) {
            if bodyLength != 0 {
                do throws(HTTPError) { try store.checkRoom(for: bodyLength) } catch { throw .http(error) }
            }
            let file: any PartialUploadFile
            do throws(StorageError) {
                file = try uploads.area.openForAppending(id: upload.id, durable: store.policy.durable)
            } catch .notFound {
                throw .notFound
            } catch {
                throw .notStored(error, keptOffset: offset)
            }
            let tookOver = try uploads.lockOnDisk(upload, token: token, file: file)
            do throws(TusError) {
                try checkOffset(of: file, is: offset, tookOver: tookOver)
                if let record = grant.recordToSave {
                    do throws(StorageError) {
                        try uploads.area.saveRecord(id: upload.id, record.encoded(), durable: store.policy.durable)
                    } catch {
                        throw .notStored(error, keptOffset: offset)
                    }
                }
                return .success(file)
            } catch {
                uploads.unlockOnDisk(upload, token: token)
                throw error
            }
        } catch {
            return .failure(error)
        }
    }

    /// Under the lock on disk the partial file's size is the offset, whoever wrote it
    /// (protocol.md "PATCH": 409 when Upload-Offset is not it). Past the offset may lie the
    /// unverified rest of a checksummed chunk of this daemon's writer that went quiet and was
    /// taken over: cut off. Anything else there was written, and acknowledged, by another
    /// daemon after this one last looked.
    private static func checkOffset(of file: any PartialUploadFile, is offset: UInt64, tookOver: Bool) throws(TusError) {
        let size = file.size
        if tookOver && size > offset {
            do throws(StorageError) { try file.truncate(to: offset) } catch { throw .notStored(error, keptOffset: offset) }
        } else if size != offset {
            throw .offsetMismatch(current: size)
        }
    }
}
