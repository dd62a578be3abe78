/// The body of one PATCH (or of a creation-with-upload POST) streaming into an upload's
/// partial file. Holds the upload's write lock (a token) from the head to the end of the
/// body; every write checks the token under the upload's lock, so a PATCH that lost the lock
/// to a newer one (or whose upload was terminated) stops without touching the file again.
///
/// tus.io protocol.md: without `Upload-Checksum` every byte received is kept, even when the
/// request breaks off ("store as much of the received data as possible"); with it the chunk
/// counts only once verified, and is cut off again on mismatch or abort ("Checksum").
///
/// The PATCH that brings the last byte publishes the upload before it answers: its 204
/// means the file is there under its name, and any other answer says what became of it.
final class TusPatch: RequestBodyConsumer {
    /// What the response looks like once the body is in.
    enum Reply {
        case patched
        case created(location: String)
    }

    private let upload: TusUpload
    private let uploads: TusUploads
    private let store: UploadStore
    private let token: UInt64
    private let file: any PartialUploadFile
    private let startOffset: UInt64
    /// The offset the body may not go past: Upload-Length, the size limit, the pending limit.
    private let limit: UInt64
    private let limitError: HTTPError
    private let checksum: (expected: UploadChecksum, digest: any IncrementalDigest)?
    private let expiration: Duration
    private let reply: Reply
    private var written: UInt64 = 0
    private var ended = false

    init(upload: TusUpload, uploads: TusUploads, store: UploadStore, lease: TusWriteLease, expiration: Duration, reply: Reply) {
        self.upload = upload
        self.uploads = uploads
        self.store = store
        self.token = lease.token
        self.file = lease.file
        self.startOffset = lease.offset
        self.limit = lease.limit
        self.limitError = lease.limitError
        self.checksum = lease.checksum
        self.expiration = expiration
        self.reply = reply
    }

    deinit {
        if !ended { abort() }
    }

    static let takenOver = TusError.http(.conflict("This upload was taken over by a newer request or terminated."))

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        let now = uploads.clock()
        let count = UInt64(bytes.count)
        try upload.state.withLock { (state: inout TusUpload.State) throws(HTTPError) in
            guard state.writer == token, !state.removed else { throw Self.takenOver.httpError }
            guard startOffset + written + count <= limit else { throw limitError }
            do throws(StorageError) {
                try file.append(bytes)
            } catch {
                // Without a checksum what arrived before stays (protocol.md); with one the chunk goes.
                throw TusError.notStored(error, keptOffset: checksum == nil ? startOffset + written : startOffset).httpError
            }
            written += count
            checksum?.digest.update(bytes)
            if checksum == nil {
                state.offset = startOffset + written
            }
            state.writerActivity = now
            state.lastActivity = now
            state.progress?.advance(to: startOffset + written)
        }
        return .accepted
    }

    /// The fsync of the chunk and, for the last one, publishing run on a worker thread. The
    /// upload is marked held by that work first, so the mutex is never held while it
    /// blocks: a HEAD on an event loop answers from the state meanwhile.
    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        ended = true
        let held = upload.state.withLock { state in
            guard state.writer == token, !state.removed else { return false }
            state.heldByWorker = true
            return true
        }
        guard held else { return .ready(Self.takenOver.response) }
        return .blocking("tus finish", { self.finishHeld() }, then: { .ready($0) })
    }

    /// On a worker, holding the upload's write lock.
    private func finishHeld() -> Response {
        let now = uploads.clock()
        if let checksum, checksum.digest.finish() != checksum.expected.digest {
            try? file.truncate(to: startOffset)
            release(at: startOffset, now: now)
            return TusError.checksumMismatch.response
        }
        do throws(StorageError) {
            if store.durable { try file.synchronize() }
        } catch {
            // Not known to be on disk, so not acknowledged: the chunk goes, the rest stays.
            try? file.truncate(to: startOffset)
            release(at: startOffset, now: now)
            return TusError.notStored(error, keptOffset: startOffset).response
        }
        let offset = startOffset + written
        let complete = upload.state.withLock { state in
            state.offset = offset
            state.lastActivity = now
            if !state.isComplete { state.release() }
            return state.isComplete
        }
        var savedAs: String?
        if complete {
            switch uploads.publish(upload, token: token, store: store) {
            case .failure(let error): return error.response
            case .success(let stored): savedAs = store.withholdsStoredNames ? nil : stored.url
            }
        }
        var headers = TusResponses.baseHeaders()
        // The stored file's URL, so the page can say "saved as" for a renamed file.
        if let savedAs { headers.add(name: "Filedrop-Saved-As", value: savedAs) }
        headers.add(name: "Upload-Offset", value: String(offset))
        if !complete {
            headers.add(name: "Upload-Expires", value: HTTPDate.format(now + expiration.components.seconds))
        }
        switch reply {
        case .patched:
            return Response(status: .noContent, headers: headers)
        case .created(let location):
            headers.add(name: "Location", value: location)
            return Response(status: .created, headers: headers)
        }
    }

    private func release(at offset: UInt64, now: Int64) {
        upload.state.withLock { state in
            state.offset = offset
            state.lastActivity = now
            state.release()
        }
    }

    func abort() {
        ended = true
        upload.state.withLock { state in
            guard state.writer == token else { return }
            state.writer = nil
            if checksum != nil {
                // An unverifiable chunk must not count (protocol.md "Checksum").
                try? file.truncate(to: startOffset)
                state.offset = startOffset
            }
        }
    }
}

/// The right to write one upload for one request, granted by `TusHandler` after the
/// offset, length and limits were checked.
struct TusWriteLease {
    var token: UInt64
    var file: any PartialUploadFile
    var offset: UInt64
    var limit: UInt64
    var limitError: HTTPError
    var checksum: (expected: UploadChecksum, digest: any IncrementalDigest)?
}
