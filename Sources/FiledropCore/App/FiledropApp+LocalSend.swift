import FiledropHTTP

/// The LocalSend receiver's endpoints (`LocalSendRoute`; LocalSend protocol v2.1 §3.2, §4,
/// §6.1). Uploads go through `UploadStore` as every other upload does: the file-name policy
/// (a `fileName` with folders, "album/a.jpg", makes the folders as `?name=` does; `..`, an
/// absolute path or a hidden name is refused), the size limit and the free-space check up
/// front for the whole session, then the guarded writer, the collision policy, the log, the
/// status line, events and metrics (method `localsend`) for each file.
extension FiledropApp {
    /// Whether the connection came in on the LocalSend port (which serves nothing else).
    func isLocalSendPort(_ context: RequestContext) -> Bool {
        guard let localSend, let port = context.securePort else { return false }
        return localSend.port == Int(port)
    }

    func serveLocalSend(
        _ route: LocalSendRoute, head: RequestHead, context: RequestContext,
        admission: UploadAdmission
    ) throws(HTTPError) -> RouteDecision {
        guard let localSend else { throw .notFound }
        let query = QueryParameters(head.query)
        switch route {
        case .info:
            return .respond(Self.localSendJSON(localSend.device.json()))
        case .register:
            try refuseLongJSON(head, limit: LocalSendDevice.maxBodyBytes)
            try admission.admit()
            return .readBody(
                LocalSendJSONBody(limit: LocalSendDevice.maxBodyBytes) { bytes in
                    do throws(LocalSendDevice.InvalidBody) {
                        _ = try LocalSendDevice.parse(bytes)
                        return .ready(Self.localSendJSON(localSend.device.json()))
                    } catch {
                        return .ready(Self.localSendError(.badRequest("Invalid body: \(error.reason).")))
                    }
                })
        case .prepareUpload:
            try LocalSendAcceptPolicy(mode: configuration.access, pin: configuration.localsendPin)
                .check(pin: query["pin"], client: context.client, throttle: access.records.throttle, now: localSend.now())
            try refuseLongJSON(head, limit: LocalSendPrepareRequest.maxBodyBytes)
            try admission.admit()
            return .readBody(
                LocalSendJSONBody(limit: LocalSendPrepareRequest.maxBodyBytes) { bytes in
                    prepareLocalSend(bytes, client: context.client, receiver: localSend)
                })
        case .upload:
            guard let sessionId = query["sessionId"], let fileId = query["fileId"], let token = query["token"] else {
                throw .badRequest("Missing parameters: upload needs sessionId, fileId and token.")
            }
            try writable()
            let start = localSend.withSessions { sessions, now in
                sessions.beginUpload(sessionId: sessionId, fileId: fileId, token: token, client: context.client, now: now)
            }
            switch start {
            case .refused(let error):
                throw error
            case .receive(let file):
                return try receiveLocalSend(
                    file, sessionId: sessionId, head: head, context: context, admission: admission,
                    receiver: localSend)
            }
        case .cancel:
            guard let sessionId = query["sessionId"] else { throw .badRequest("Missing parameters: cancel needs sessionId.") }
            guard
                let session = localSend.withSessions({ sessions, _ in
                    sessions.cancel(sessionId: sessionId, client: context.client)
                })
            else { throw LocalSendSessions.unknownSession }
            localSend.logEnd(session, .cancelled)
            return .respond(Response(status: .ok))
        case .unknown:
            throw .notFoundBecause(
                "This LocalSend receiver offers info, register, prepare-upload, upload and cancel of protocol v2.")
        case .methodRefused(_, let allowed):
            throw .methodNotAllowed(allowed: allowed == .get ? [.get, .head] : [allowed])
        }
    }

    /// The body of `prepare-upload`: every file named and sized by the storage policy, the
    /// whole session's size checked against the free space (on a worker: statvfs), then the
    /// session and its tokens.
    private func prepareLocalSend(_ bytes: [UInt8], client: String, receiver: LocalSendReceiver) -> Deferred<Response> {
        let request: LocalSendPrepareRequest
        var files: [LocalSendSessions.File] = []
        var total: UInt64 = 0
        do throws(HTTPError) {
            do throws(LocalSendDevice.InvalidBody) {
                request = try LocalSendPrepareRequest.parse(bytes)
            } catch {
                throw .badRequest("Invalid body: \(error.reason).")
            }
            for offer in request.files {
                let path = try store.names.storagePath(fromRelative: offer.fileName)
                guard let name = path.name else { throw .badRequest("A file was announced without a name.") }
                _ = try store.names.storedName(from: name)
                try store.policy.checkSize(offer.size)
                let (sum, overflow) = total.addingReportingOverflow(offer.size)
                guard !overflow else { throw StoragePolicy.tooFullToStart }
                total = sum
                files.append(LocalSendSessions.File(offer: offer, token: receiver.newID(), directory: path.parent, name: name))
            }
        } catch {
            return .ready(Self.localSendError(error))
        }
        guard !files.isEmpty else { return .ready(Response(status: .noContent)) }
        return .blocking(
            "localsend room",
            { [store] () -> HTTPError? in
                do throws(HTTPError) {
                    try store.checkRoom(for: total)
                    return nil
                } catch {
                    return error
                }
            }
        ) { refusal in
            if let refusal { return .ready(Self.localSendError(refusal)) }
            let sessionId = receiver.newID()
            let answer = receiver.withSessions { sessions, now in
                sessions.start(id: sessionId, client: client, sender: request.sender.alias, files: files, now: now)
            }
            switch answer {
            case .nothingToSend:
                return .ready(Response(status: .noContent))
            case .blocked:
                return .ready(
                    Self.localSendError(.conflict("Blocked by another session: another sender is sending to this receiver.")))
            case .accepted(let session, let previous):
                if let previous { receiver.logEnd(previous, .replaced) }
                receiver.logStart(session)
                return .ready(
                    Self.localSendJSON(
                        JSONWriter.document { json in
                            json.object { json in
                                json.member("sessionId", session.id)
                                json.key("files")
                                json.object { json in
                                    for file in files {
                                        json.key(escaping: file.offer.id)
                                        json.string(file.token)
                                    }
                                }
                            }
                        }))
            }
        }
    }

    /// `upload` of an announced file: the same plan and open as a PUT, held to the announced size.
    private func receiveLocalSend(
        _ file: LocalSendSessions.File, sessionId: String, head: RequestHead, context: RequestContext,
        admission: UploadAdmission, receiver: LocalSendReceiver
    ) throws(HTTPError) -> RouteDecision {
        let failed = {
            _ = receiver.withSessions { sessions, now in
                sessions.uploadEnded(sessionId: sessionId, fileId: file.offer.id, saved: false, now: now)
            }
        }
        let plan: UploadPlan
        do throws(HTTPError) {
            if let length = declaredLength(head), length != file.offer.size {
                throw length > file.offer.size
                    ? LocalSendUpload.longerThanAnnounced(file.offer.size)
                    : .badRequest("The body is \(length) bytes; the file was announced with \(file.offer.size).")
            }
            plan = try store.plan(
                directory: file.directory, clientName: file.name, expectedSize: file.offer.size,
                client: context.client, checksummed: false, method: .localsend)
            try admission.admit(name: plan.directory.appending(checkedName: plan.name).description)
        } catch {
            failed()
            throw error
        }
        return .blocking("open upload", skippableWhenAbandoned: false, { plan.open() }) { opened in
            switch opened {
            case .success(let pending):
                return .readBody(LocalSendUpload(upload: pending, receiver: receiver, sessionId: sessionId, file: file))
            case .failure(let error):
                failed()
                return .respond(Self.localSendError(error))
            }
        }
    }

    /// 413 before the body for a declared length over `limit`.
    private func refuseLongJSON(_ head: RequestHead, limit: Int) throws(HTTPError) {
        if let length = declaredLength(head), length > UInt64(limit) { throw .contentTooLarge(limit: UInt64(limit)) }
    }

    private static func localSendJSON(_ body: [UInt8]) -> Response {
        Response(
            status: .ok, headers: [.contentType: ResponseFormat.json.contentType, .cacheControl: "no-store"], body: .bytes(body))
    }

    /// An error as JSON (`{"error": ..., "status": ...}`); a 401 here is about the PIN, not HTTP authentication, so without
    /// `WWW-Authenticate` (no browser should offer a password dialog for it).
    static func localSendError(_ error: HTTPError) -> Response {
        var response = Response.error(error, format: .json)
        response.headers.remove(.wwwAuthenticate)
        return response
    }
}
