/// The tus 1.0.0 resumable-upload protocol (tus.io protocol.md): core (HEAD, PATCH,
/// OPTIONS) and the creation, creation-with-upload, creation-defer-length, termination,
/// expiration and checksum extensions.
///
/// ```
/// OPTIONS /files/            what the server supports
/// POST    /files/            creates an upload (tusd's default endpoint); body optional
/// HEAD    /files/.tus/<id>   its offset
/// PATCH   /files/.tus/<id>   appends at Upload-Offset
/// DELETE  /files/.tus/<id>   terminates it
/// ```
/// Upload URLs live under `/files/.tus/`: `FileNamePolicy` never accepts a hidden name, so
/// no stored file can be reached there. A finished upload goes through `UploadStore` like
/// any other: same names, collisions and fsync.
struct TusHandler {
    static let creationPath = "/files/"
    static let uploadPrefix = "/files/.tus/"

    enum Target {
        case creation
        case upload(id: Substring)
    }

    let uploads: TusUploads
    let store: UploadStore
    let limits: TusLimits
    let readOnly: Bool

    /// Which tus resource `head` addresses, nil when it is not a tus request. `/files/` is
    /// shared with the listing: only OPTIONS and POST there are tus.
    static func target(of head: RequestHead) -> Target? {
        let path = head.path
        if path == "/files/" || path == "/files" {
            switch TusHeaders.effectiveMethod(head) {
            case .options, .post: return .creation
            default: return nil
            }
        }
        guard path.hasASCIIPrefix(uploadPrefix) else { return nil }
        return .upload(id: path.dropFirst(uploadPrefix.count))
    }

    func route(_ head: RequestHead, target: Target, context: RequestContext) -> RouteDecision {
        do throws(TusError) {
            return try dispatch(head, target: target, context: context)
        } catch {
            return .respond(error.response)
        }
    }

    private func dispatch(_ head: RequestHead, target: Target, context: RequestContext) throws(TusError) -> RouteDecision {
        let method = TusHeaders.effectiveMethod(head)
        // protocol.md "OPTIONS": the client should not send Tus-Resumable; the server ignores it.
        if method == .options {
            return .respond(options())
        }
        try TusHeaders.checkVersion(head)
        switch target {
        case .creation:
            return try create(head, context: context)
        case .upload(let id):
            guard TusID.isValid(id) else { throw .notFound }
            switch method {
            case .head: return .respond(try status(String(id)))
            case .patch: return try patch(head, id: String(id))
            case .delete: return .respond(try terminate(String(id)))
            default: throw .http(.methodNotAllowed(allowed: [.head, .patch, .delete, .options]))
            }
        }
    }

    // MARK: - OPTIONS

    /// protocol.md "OPTIONS": version, extensions, size limit and checksum algorithms.
    private func options() -> Response {
        var headers = TusResponses.baseHeaders()
        headers.add(name: "Tus-Version", value: TusHeaders.version)
        headers.add(name: "Tus-Extension", value: TusHeaders.extensions.joined(separator: ","))
        if let maxUploadSize = limits.maxUploadSize {
            headers.add(name: "Tus-Max-Size", value: String(maxUploadSize))
        }
        headers.add(name: "Tus-Checksum-Algorithm", value: uploads.digests.algorithms.joined(separator: ","))
        headers.add(name: "Allow", value: "GET, HEAD, PUT, POST, OPTIONS")
        return Response(status: .noContent, headers: headers)
    }

    // MARK: - POST (creation)

    /// protocol.md "Creation": Upload-Length or Upload-Defer-Length: 1, optional
    /// Upload-Metadata (`filename`, `relativePath`); "Creation With Upload": a body of
    /// `application/offset+octet-stream` is the first chunk.
    private func create(_ head: RequestHead, context: RequestContext) throws(TusError) -> RouteDecision {
        try writable()
        let length = try TusHeaders.integer(head, "upload-length")
        if let deferred = head.headers["upload-defer-length"] {
            guard deferred.trimmingOWS() == "1", length == nil else {
                throw .badRequest("Upload-Defer-Length must be 1, and only without Upload-Length.")
            }
        } else if length == nil {
            throw .badRequest("Send Upload-Length, or Upload-Defer-Length: 1 when the size is not known yet.")
        }
        if let length { try checkSize(length) }
        let hasBody = TusHeaders.hasBody(head)
        if hasBody && !TusHeaders.hasPatchContentType(head) { throw .wrongContentType }
        let metadata = try head.headers["upload-metadata"].map { (value) throws(TusError) in try UploadMetadata(parsing: value) } ?? .empty
        let (directory, name) = try destination(metadata)
        if let available = store.storage.availableSpace(), available < (length ?? 0) + store.minFreeSpace {
            throw .http(.insufficientStorage("The server's disk is too full for this upload."))
        }
        let record = TusRecord(length: length, name: name, directory: directory.components, metadata: metadata.raw,
                               client: context.client, created: uploads.clock())
        let upload = try uploads.create(record, limits: limits)
        let location = Self.uploadPrefix + upload.id
        if hasBody || length == 0 {
            // An empty upload is complete at creation; the empty "PATCH" publishes it.
            let consumer: TusPatch
            do throws(TusError) {
                consumer = try patchConsumer(head, upload: upload, offset: 0, reply: .created(location: location))
            } catch {
                forgetNewUpload(upload)
                throw error
            }
            // Without a body the machine finishes it at once (off the loop, like every publish).
            return .readBody(consumer)
        }
        var headers = TusResponses.baseHeaders()
        headers.add(name: "Location", value: location)
        headers.add(name: "Upload-Offset", value: "0")
        headers.add(name: "Upload-Expires", value: HTTPDate.format(record.created + limits.expiration.components.seconds))
        return .respond(Response(status: .created, headers: headers))
    }

    /// Folder from `relativePath` (`dir/sub/file.txt`, as folder pickers report it), name from
    /// `filename` (else the last component of `relativePath`), both through the name policy.
    private func destination(_ metadata: UploadMetadata) throws(TusError) -> (StoragePath, String) {
        do throws(HTTPError) {
            var directory = StoragePath.root
            var fallbackName = "upload"
            if let relativePath = metadata.text("relativePath"), !relativePath.isEmpty {
                let path = try store.names.storagePath(fromRelative: relativePath)
                directory = path.parent
                fallbackName = path.name ?? fallbackName
            }
            let name = try store.names.storedName(from: metadata.text("filename") ?? metadata.text("name") ?? fallbackName)
            return (directory, name)
        } catch {
            throw .http(error)
        }
    }

    private func forgetNewUpload(_ upload: TusUpload) {
        upload.state.withLock { $0.removed = true }
        uploads.forget(upload, reason: "creation refused")
    }

    // MARK: - HEAD

    /// protocol.md "HEAD": Upload-Offset always, Upload-Length when known (else
    /// Upload-Defer-Length: 1), Upload-Metadata as sent, never cached.
    private func status(_ id: String) throws(TusError) -> Response {
        var headers = TusResponses.baseHeaders()
        if let upload = uploads.liveUpload(id, expiration: limits.expiration) {
            let state = upload.state.withLock { $0.removed ? nil : ($0.record, $0.offset, $0.lastActivity) }
            guard let (record, offset, lastActivity) = state else { throw .notFound }
            headers.add(name: "Upload-Offset", value: String(offset))
            if let length = record.length {
                headers.add(name: "Upload-Length", value: String(length))
            } else {
                headers.add(name: "Upload-Defer-Length", value: "1")
            }
            if !record.metadata.isEmpty {
                headers.add(name: "Upload-Metadata", value: record.metadata)
            }
            headers.add(name: "Upload-Expires", value: HTTPDate.format(lastActivity + limits.expiration.components.seconds))
        } else if let length = uploads.finishedLength(id) {
            headers.add(name: "Upload-Offset", value: String(length))
            headers.add(name: "Upload-Length", value: String(length))
        } else {
            throw .notFound
        }
        return Response(status: .ok, headers: headers)
    }

    // MARK: - PATCH

    /// protocol.md "PATCH": the body goes at Upload-Offset, which must be the current offset
    /// (409 otherwise); "creation-defer-length": a PATCH may bring the Upload-Length.
    private func patch(_ head: RequestHead, id: String) throws(TusError) -> RouteDecision {
        try writable()
        guard TusHeaders.hasPatchContentType(head) else { throw .wrongContentType }
        guard let offset = try TusHeaders.integer(head, "upload-offset") else {
            throw .badRequest("A PATCH needs Upload-Offset.")
        }
        let hasBody = TusHeaders.hasBody(head)
        guard let upload = uploads.liveUpload(id, expiration: limits.expiration) else {
            // The last response of a finished upload was lost: the repeat changes nothing.
            if let length = uploads.finishedLength(id), length == offset, !hasBody {
                var headers = TusResponses.baseHeaders()
                headers.add(name: "Upload-Offset", value: String(length))
                return .respond(Response(status: .noContent, headers: headers))
            }
            throw .notFound
        }
        let consumer = try patchConsumer(head, upload: upload, offset: offset, reply: .patched)
        // No body: the machine finishes it at once (a `Content-Length: 0` body is never read).
        return .readBody(consumer)
    }

    /// Checks the request against the upload and takes its write lock.
    private func patchConsumer(_ head: RequestHead, upload: TusUpload, offset: UInt64, reply: TusPatch.Reply) throws(TusError) -> TusPatch {
        let newLength = try TusHeaders.integer(head, "upload-length")
        var checksum: (expected: UploadChecksum, digest: any IncrementalDigest)?
        if let header = head.headers["upload-checksum"] {
            let expected = try UploadChecksum(parsing: header)
            guard let digest = uploads.digests.makeDigest(algorithm: expected.algorithm) else {
                throw .badRequest("The checksum algorithm \"\(expected.algorithm.logEscaped)\" is not supported; use one of \(uploads.digests.algorithms.joined(separator: ", ")).")
            }
            checksum = (expected, digest)
        }
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
            throw .http(error.httpError)
        }
        let (limit, limitError) = try upload.state.withLock { (state: inout TusUpload.State) throws(TusError) -> (UInt64, HTTPError) in
            guard !state.removed else { throw .notFound }
            if state.writer != nil, now - state.writerActivity < uploads.staleWriterSeconds { throw .locked }
            guard offset == state.offset else { throw .offsetMismatch(current: state.offset) }
            if let newLength, newLength != state.record.length {
                try setLength(newLength, of: upload.id, state: &state, reservedByOthers: reservedByOthers)
            }
            let (limit, limitError) = writeLimit(state.record.length, reservedByOthers: reservedByOthers)
            if let bodyLength, offset + bodyLength > limit { throw .http(limitError) }
            if file.size != state.offset {
                // Left over from a PATCH that lost its lock or failed its checksum.
                do throws(StorageError) {
                    try file.truncate(to: state.offset)
                } catch {
                    throw .http(error.httpError)
                }
            }
            state.writer = token
            state.writerActivity = now
            if state.progress == nil {
                state.progress = store.monitor.started(name: state.record.displayName, expectedSize: state.record.length, client: state.record.client)
            }
            return (limit, limitError)
        }
        let lease = TusWriteLease(token: token, file: file, offset: offset, limit: limit, limitError: limitError, checksum: checksum)
        return TusPatch(upload: upload, uploads: uploads, store: store, lease: lease, expiration: limits.expiration, reply: reply)
    }

    /// creation-defer-length: the length arrives once and never changes.
    private func setLength(_ length: UInt64, of id: String, state: inout TusUpload.State, reservedByOthers: UInt64) throws(TusError) {
        guard state.record.length == nil else { throw .badRequest("Upload-Length was already set and cannot change.") }
        guard length >= state.offset else { throw .badRequest("Upload-Length is smaller than what was already uploaded.") }
        if let maxPending = limits.maxPending, reservedByOthers + length > maxPending {
            throw .pendingSpaceFull(limit: maxPending)
        }
        var record = state.record
        record.length = length
        do {
            try uploads.area.saveRecord(id: id, record.encoded())
        } catch {
            throw .http(error.httpError)
        }
        state.record = record
    }

    /// How far the body may go: Upload-Length when known, else the size and pending limits.
    private func writeLimit(_ length: UInt64?, reservedByOthers: UInt64) -> (UInt64, HTTPError) {
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

    // MARK: - DELETE (termination)

    /// protocol.md "Termination": 204, and the URL is gone for good. A PATCH still writing
    /// stops at its next byte.
    private func terminate(_ id: String) throws(TusError) -> Response {
        try writable()
        guard let upload = uploads.liveUpload(id, expiration: limits.expiration) else { throw .notFound }
        let wasLive = upload.state.withLock { state in
            defer { state.removed = true; state.writer = nil }
            return !state.removed
        }
        guard wasLive else { throw .notFound }
        uploads.forget(upload, reason: "terminated by the client")
        return Response(status: .noContent, headers: TusResponses.baseHeaders())
    }

    // MARK: - Helpers

    private func checkSize(_ size: UInt64) throws(TusError) {
        do {
            try store.checkSize(size)
        } catch {
            throw .http(error)
        }
    }

    private func writable() throws(TusError) {
        if readOnly { throw .http(.forbidden("This server is read-only: uploads are switched off.")) }
    }
}
