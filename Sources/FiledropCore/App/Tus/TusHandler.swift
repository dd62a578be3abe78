import FiledropHTTP

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
/// Upload URLs live under `/files/.tus/` (`TusRoute`): `FileNamePolicy` reserves `.tus`, so
/// no stored file can be reached there. Every upload goes through `UploadStore` like any
/// other: the same guard before opening and while writing, the same names, collisions and
/// fsync at publish. Each upload's rules are its `TusUploadMachine`'s; this carries out what
/// the machine decides.
///
/// Nothing here blocks the loop: record writes (fsync), deleting a partial file and
/// publishing are blocking work, never skipped once handed out, so what they started
/// always finishes and the upload's lock and the client's upload slot come back.
struct TusHandler {
    let uploads: TusUploads
    let store: UploadStore
    let limits: TusLimits
    let readOnly: Bool
    /// Taken right before a request starts an upload body, after every other refusal.
    let admission: UploadAdmission

    /// `route`: what `Route` read from `head`.
    func route(_ head: RequestHead, route: TusRoute, context: RequestContext) -> RouteDecision {
        do throws(TusError) {
            return try dispatch(head, route: route, context: context)
        } catch {
            return .respond(error.response)
        }
    }

    private func dispatch(_ head: RequestHead, route: TusRoute, context: RequestContext) throws(TusError) -> RouteDecision {
        switch route {
        case .options:
            // protocol.md "OPTIONS": the client should not send Tus-Resumable; the server ignores it.
            return .respond(options())
        case .creation:
            try TusHeaders.checkVersion(head)
            return try create(head, context: context)
        case .upload(let id, let operation):
            try TusHeaders.checkVersion(head)
            guard UnguessableID.isWellFormed(id) else { throw .notFound }
            if case .methodRefused = operation { throw .http(.methodNotAllowed(allowed: TusRoute.uploadMethods)) }
            let id = String(id)
            // The upload as its files are now: another daemon on the same save directory may
            // have made, written or removed it (`TusUploads.refresh`, a stat and a small read).
            return .blocking(
                "tus lookup",
                { [uploads, limits, store] () -> Bool in
                    uploads.refresh(id, expiration: limits.expiration, monitor: store.monitor)
                    // Another daemon writing it moves the offset on disk: "locked" is the answer
                    // then, not an offset that is already out of date, and a termination waits
                    // for the client to ask again rather than pull the file from under the writer.
                    return operation != .status && uploads.isLockedElsewhere(id)
                }
            ) { lockedElsewhere in
                do throws(TusError) {
                    switch operation {
                    case .status: return try status(id)
                    case .append: return try patch(head, id: id, lockedElsewhere: lockedElsewhere)
                    case .terminate: return try terminate(id, lockedElsewhere: lockedElsewhere)
                    case .methodRefused: throw .http(.methodNotAllowed(allowed: TusRoute.uploadMethods))
                    }
                } catch {
                    return .respond(error.response)
                }
            }
        }
    }

    // MARK: - OPTIONS

    /// protocol.md "OPTIONS": version, extensions, size limit and checksum algorithms.
    private func options() -> Response {
        var headers = TusResponses.baseHeaders()
        headers.add(.tusVersion, TusHeaders.version)
        headers.add(.tusExtension, TusHeaders.extensions.joined(separator: ","))
        if let maxUploadSize = store.policy.maxFileSize {
            headers.add(.tusMaxSize, String(maxUploadSize))
        }
        headers.add(.tusChecksumAlgorithm, uploads.digests.algorithms.joined(separator: ","))
        headers.add(.allow, "GET, HEAD, PUT, POST, OPTIONS")
        return Response(status: .noContent, headers: headers)
    }

    // MARK: - POST (creation)

    /// protocol.md "Creation": Upload-Length or Upload-Defer-Length: 1, optional
    /// Upload-Metadata (`filename`, `relativePath`); "Creation With Upload": a body of
    /// `application/offset+octet-stream` is the first chunk.
    private func create(_ head: RequestHead, context: RequestContext) throws(TusError) -> RouteDecision {
        try writable()
        let length = try TusHeaders.integer(head, .uploadLength)
        if let deferred = head.headers[.uploadDeferLength] {
            guard deferred.trimmingOWS() == "1", length == nil else {
                throw .badRequest("Upload-Defer-Length must be 1, and only without Upload-Length.")
            }
        } else if length == nil {
            throw .badRequest("Send Upload-Length, or Upload-Defer-Length: 1 when the size is not known yet.")
        }
        if let length { try checkSize(length) }
        let hasBody = TusHeaders.hasBody(head)
        if hasBody && !TusHeaders.hasPatchContentType(head) { throw .wrongContentType }
        let checksum = try expectedChecksum(head)
        let metadata =
            try head.headers[.uploadMetadata].map { (value) throws(TusError) in try UploadMetadata(parsing: value) } ?? .empty
        let (directory, name) = try destination(metadata)
        // An empty upload is complete at creation; the empty "PATCH" publishes it.
        let startsBody = hasBody || length == 0
        let record = TusRecord(
            length: length, name: name, directory: directory.components, metadata: metadata.raw,
            client: context.client, created: uploads.clock())
        if startsBody { try admit(name: record.displayName) }
        let upload = try uploads.register(record, limits: limits)
        // Absolute: some tus clients cannot resolve a relative Location.
        let path = LocationPath(components: [Route.filesFolder, FileNamePolicy.tusFolderName, upload.id])
        let location = RequestOrigin(head: head, isSecure: context.isSecure)?.url(path: path) ?? path.description
        return .blocking(
            "tus create", skippableWhenAbandoned: false,
            { [uploads, store, limits] in
                uploads.storeNew(upload, store: store, limits: limits)
            }
        ) { failure in
            if let failure { return .respond(failure.response) }
            guard startsBody else {
                var headers = TusResponses.baseHeaders()
                headers.add(.location, location)
                headers.add(.uploadOffset, "0")
                headers.add(.uploadExpires, HTTPDate.format(record.created + limits.expiration.components.seconds))
                return .respond(Response(status: .created, headers: headers))
            }
            do throws(TusError) {
                // Without a body the machine finishes it at once (off the loop, like every publish).
                return try patchConsumer(head, upload: upload, offset: 0, checksum: checksum, reply: .created(location: location))
            } catch {
                _ = upload.machine.withLock { $0.remove() }
                return removing(upload, reason: "creation refused", answer: error.response)
            }
        }
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
            return (store.placement(in: directory), name)
        } catch {
            throw .http(error)
        }
    }

    // MARK: - HEAD

    /// protocol.md "HEAD": Upload-Offset always, Upload-Length when known (else
    /// Upload-Defer-Length: 1), Upload-Metadata as sent, never cached. An upload that holds
    /// all its bytes but is not saved yet (its publish failed, or the daemon stopped
    /// before it) is published first, so the offset the client reads means "done".
    private func status(_ id: String) throws(TusError) -> RouteDecision {
        guard let upload = uploads.upload(id) else {
            guard let length = uploads.finishedLength(id) else { throw .notFound }
            return .respond(finishedStatus(length))
        }
        if !readOnly, let token = uploads.claimForPublishing(upload) {
            return .blocking(
                "tus publish", skippableWhenAbandoned: false,
                { [uploads, store] in
                    uploads.publish(upload, token: token, store: store)
                }
            ) { outcome in
                switch outcome {
                case .success(let stored): .respond(finishedStatus(stored.size))
                case .failure(let error): .respond(error.response)
                }
            }
        }
        // Answered from the state, also while a worker writes or publishes it: never waits.
        let state = upload.machine.withLock { $0.isRemoved ? nil : ($0.record, $0.offset, $0.lastActivity) }
        guard let (record, offset, lastActivity) = state else {
            // Published a moment ago, by the request that held it.
            guard let length = uploads.finishedLength(id) else { throw .notFound }
            return .respond(finishedStatus(length))
        }
        var headers = TusResponses.baseHeaders()
        headers.add(.uploadOffset, String(offset))
        if let length = record.length {
            headers.add(.uploadLength, String(length))
        } else {
            headers.add(.uploadDeferLength, "1")
        }
        if !record.metadata.isEmpty {
            headers.add(.uploadMetadata, record.metadata)
        }
        headers.add(.uploadExpires, HTTPDate.format(lastActivity + limits.expiration.components.seconds))
        return .respond(Response(status: .ok, headers: headers))
    }

    /// A finished upload: a client whose last response was lost learns it is done.
    private func finishedStatus(_ length: UInt64) -> Response {
        var headers = TusResponses.baseHeaders()
        headers.add(.uploadOffset, String(length))
        headers.add(.uploadLength, String(length))
        return Response(status: .ok, headers: headers)
    }

    // MARK: - DELETE (termination)

    /// protocol.md "Termination": 204, and the URL is gone for good. A PATCH still writing
    /// stops at its next byte.
    private func terminate(_ id: String, lockedElsewhere: Bool) throws(TusError) -> RouteDecision {
        try writable()
        guard let upload = uploads.upload(id) else { throw .notFound }
        if lockedElsewhere { throw .locked }
        try upload.machine.withLock { (machine: inout TusUploadMachine) throws(TusError) in try machine.terminate() }
        return removing(
            upload, reason: "terminated by the client", answer: Response(status: .noContent, headers: TusResponses.baseHeaders()))
    }

    // MARK: - Helpers

    /// Deletes an upload already marked removed (its partial file may be big) on a worker,
    /// then answers.
    func removing(_ upload: TusUpload, reason: String, answer: Response) -> RouteDecision {
        .blocking("tus remove", skippableWhenAbandoned: false, { [uploads] in uploads.forget(upload, reason: reason) }) {
            .respond(answer)
        }
    }

    func admit(name: String) throws(TusError) {
        do {
            try admission.admit(name: name)
        } catch {
            throw .http(error)
        }
    }

    func checkSize(_ size: UInt64) throws(TusError) {
        do {
            try store.policy.checkSize(size)
        } catch {
            throw .http(error)
        }
    }

    func writable() throws(TusError) {
        if readOnly { throw .http(.readOnlyServer) }
    }
}
