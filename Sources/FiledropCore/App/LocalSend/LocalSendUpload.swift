import FiledropHTTP

/// The body of `POST upload` (LocalSend protocol v2.1 §4.2): one announced file's bytes,
/// streamed through the same `PendingUpload` as a PUT (guarded writer, limits, free-space
/// checks, publish under the collision policy). Held to the announced size: a byte more is
/// refused (413) and nothing is kept, a byte less is a truncated body (400). A session
/// cancelled meanwhile stops the body at its next bytes; either way the session hears how it
/// ended, so a failed file can be sent again.
final class LocalSendUpload: RequestBodyConsumer {
    private let upload: PendingUpload
    private let receiver: LocalSendReceiver
    private let sessionId: String
    private let file: LocalSendSessions.File
    private var received: UInt64 = 0
    private var ended = false

    init(upload: PendingUpload, receiver: LocalSendReceiver, sessionId: String, file: LocalSendSessions.File) {
        self.upload = upload
        self.receiver = receiver
        self.sessionId = sessionId
        self.file = file
    }

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        received += UInt64(bytes.count)
        guard received <= file.offer.size else {
            upload.discard(reason: "longer than announced")
            throw Self.longerThanAnnounced(file.offer.size)
        }
        guard receiver.withSessions({ sessions, _ in sessions.isReceiving(sessionId: sessionId, fileId: file.offer.id) }) else {
            upload.discard(reason: "session ended")
            throw LocalSendSessions.unknownSession
        }
        try upload.write(bytes)
        guard let writeback = upload.writebackPacing() else { return .accepted }
        return .paused(accepted: bytes.count, work: writeback.work, then: writeback.then)
    }

    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        guard receiver.withSessions({ sessions, _ in sessions.isReceiving(sessionId: sessionId, fileId: file.offer.id) }) else {
            upload.discard(reason: "session ended")
            end(saved: false)
            return .ready(.error(LocalSendSessions.unknownSession, format: .json))
        }
        return upload.commit(expectedSHA256: file.offer.sha256.flatMap(SHA256Text.bytes(hex:))).map { [self] outcome in
            switch outcome {
            case .success:
                end(saved: true)
                return Response(status: .ok)
            case .failure(let error):
                end(saved: false)
                return .error(error, format: .json)
            }
        }
    }

    func abort() {
        upload.discard(reason: "the request ended before the body was complete")
        end(saved: false)
    }

    private func end(saved: Bool) {
        guard !ended else { return }
        ended = true
        let finished = receiver.withSessions { sessions, now in
            sessions.uploadEnded(sessionId: sessionId, fileId: file.offer.id, saved: saved, now: now)
        }
        if let finished { receiver.logEnd(finished, .finished) }
    }

    static func longerThanAnnounced(_ size: UInt64) -> HTTPError {
        .contentTooLarge(limit: size)
    }
}
