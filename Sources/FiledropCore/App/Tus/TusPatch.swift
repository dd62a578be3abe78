/// The body of one PATCH (or of a creation-with-upload POST) streaming into an upload's
/// partial file. Holds the upload's write lock (a token) from the head to the end of the
/// body; every write checks the token under the upload's lock, so a PATCH that lost the lock
/// to a newer one (or whose upload was terminated) stops without touching the file again.
///
/// tus.io protocol.md: without `Upload-Checksum` every byte received is kept, even when the
/// request breaks off ("store as much of the received data as possible"); with it the chunk
/// counts only once verified, and is cut off again on mismatch or abort ("Checksum").
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

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        let now = uploads.clock()
        let count = UInt64(bytes.count)
        try upload.state.withLock { (state: inout TusUpload.State) throws(HTTPError) in
            guard state.writer == token, !state.removed else {
                throw .conflict("This upload was taken over by a newer request or terminated.")
            }
            guard startOffset + written + count <= limit else { throw limitError }
            do throws(StorageError) {
                try file.append(bytes)
            } catch {
                throw error.httpError
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

    /// The fsync of the chunk and, for the last one, publishing run on a worker thread.
    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        .blocking("tus finish", { self.finishBlocking() }, then: { .ready($0) })
    }

    private func finishBlocking() -> Response {
        ended = true
        let now = uploads.clock()
        let outcome: Result<(offset: UInt64, complete: Bool), TusError> = upload.state.withLock { state in
            guard state.writer == token, !state.removed else {
                return .failure(.http(.conflict("This upload was taken over by a newer request or terminated.")))
            }
            state.writer = nil
            state.lastActivity = now
            if let checksum, checksum.digest.finish() != checksum.expected.digest {
                try? file.truncate(to: startOffset)
                state.offset = startOffset
                return .failure(.checksumMismatch)
            }
            do throws(StorageError) {
                if store.durable { try file.synchronize() }
            } catch {
                try? file.truncate(to: startOffset)
                state.offset = startOffset
                return .failure(.http(error.httpError))
            }
            state.offset = startOffset + written
            let complete = state.record.length == state.offset
            if complete { state.removed = true }
            return .success((state.offset, complete))
        }
        switch outcome {
        case .failure(let error):
            return error.response
        case .success(let (offset, complete)):
            if complete {
                do {
                    _ = try uploads.complete(upload, store: store)
                } catch {
                    return TusError.http(error).response
                }
            }
            var headers = TusResponses.baseHeaders()
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
