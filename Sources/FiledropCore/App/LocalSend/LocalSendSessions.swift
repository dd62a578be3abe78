import FiledropHTTP

/// The receiver's sessions (LocalSend protocol v2.1 §4) as a sans-I/O state machine: requests
/// come in with the time, answers go out as values, and nothing here touches a socket, a file
/// or a clock. `LocalSendReceiver` holds one behind a mutex for every event loop.
///
/// One session is active at a time (§4.1: another sender is "blocked by another session", 409).
/// A session's files each have a token; a file is `waiting` until its upload starts, `receiving`
/// while its body streams (a second upload of it meanwhile is 409), and `saved` once stored: its
/// token is then spent, and a replay is refused like a wrong one (403). A failed upload puts the
/// file back to `waiting`, so the sender may try again. The session ends when every file is
/// saved, when the sender cancels it (§4.3), when the same sender prepares a new one while none
/// of its uploads runs, or when it has been idle (nothing receiving, no request) for
/// `idleTimeout`. Files are invisible until saved (`PendingUpload`), so a session that ends
/// unfinished leaves only the files it saved.
public struct LocalSendSessions: Sendable {
    public struct File: Sendable, Equatable {
        public enum State: Sendable, Equatable {
            case waiting
            case receiving
            case saved
        }

        public let offer: LocalSendFileOffer
        public let token: String
        /// Where it is saved, as the file-name policy made it from `offer.fileName`.
        public let directory: StoragePath
        public let name: String
        public internal(set) var state: State = .waiting

        public init(offer: LocalSendFileOffer, token: String, directory: StoragePath, name: String) {
            self.offer = offer
            self.token = token
            self.directory = directory
            self.name = name
        }
    }

    public struct Session: Sendable, Equatable {
        public let id: String
        /// The sender's address: every later request of the session must come from it (§4.2: "Invalid token or IP address").
        public let client: String
        /// The sender's alias, for the log.
        public let sender: String
        public internal(set) var files: [String: File]
        var lastActivity: UInt64

        var receiving: Int { files.values.count { $0.state == .receiving } }
        public var saved: Int { files.values.count { $0.state == .saved } }
        var isComplete: Bool { files.values.allSatisfy { $0.state == .saved } }
    }

    /// How a session ended, for the log line that says so.
    public enum Ending: String, Sendable, Equatable {
        case finished
        case cancelled
        case expired
        /// Its sender prepared a new one.
        case replaced
    }

    public enum StartAnswer: Sendable, Equatable {
        /// 200 with the session id and the tokens; `previous` ended to make room (the same sender's).
        case accepted(Session, previous: Session?)
        /// 204: nothing to send (§4.1 "Finished (No file transfer needed)").
        case nothingToSend
        /// 409: another sender's session is active.
        case blocked
    }

    public enum UploadStart: Sendable, Equatable {
        /// Stream the body into `file`.
        case receive(File)
        /// 400, 403 or 409 with the sentence.
        case refused(HTTPError)
    }

    public private(set) var active: Session?
    /// Nanoseconds a session may sit with nothing receiving.
    public let idleTimeout: UInt64

    public init(idleTimeout: UInt64) {
        self.idleTimeout = idleTimeout
    }

    /// The active session if it has been idle too long: it ends, and is returned for the log.
    public mutating func expire(now: UInt64) -> Session? {
        guard let session = active, session.receiving == 0, now &- session.lastActivity >= idleTimeout else { return nil }
        active = nil
        return session
    }

    /// `prepare-upload` from `client`, whose files were already named by the storage policy.
    public mutating func start(id: String, client: String, sender: String, files: [File], now: UInt64) -> StartAnswer {
        guard !files.isEmpty else { return .nothingToSend }
        var previous: Session?
        if let session = active {
            guard session.client == client, session.receiving == 0 else { return .blocked }
            previous = session
        }
        let session = Session(
            id: id, client: client, sender: sender,
            files: Dictionary(files.map { ($0.offer.id, $0) }, uniquingKeysWith: { first, _ in first }),
            lastActivity: now)
        active = session
        return .accepted(session, previous: previous)
    }

    /// `upload?sessionId=&fileId=&token=` from `client`.
    public mutating func beginUpload(sessionId: String, fileId: String, token: String, client: String, now: UInt64) -> UploadStart
    {
        guard var session = active, ConstantTime.equals(session.id.utf8, sessionId.utf8) else {
            return .refused(Self.unknownSession)
        }
        guard session.client == client else { return .refused(.forbidden("This session belongs to another address.")) }
        guard var file = session.files[fileId], ConstantTime.equals(file.token.utf8, token.utf8) else {
            return .refused(.forbidden("No file of this session has this id and token."))
        }
        switch file.state {
        case .saved:
            return .refused(.forbidden("This file was already received; its token is spent."))
        case .receiving:
            return .refused(.conflict("This file is being received on another connection."))
        case .waiting:
            file.state = .receiving
            session.files[fileId] = file
            session.lastActivity = now
            active = session
            return .receive(file)
        }
    }

    /// Whether the upload of `fileId` may go on: false once its session was cancelled or replaced.
    public func isReceiving(sessionId: String, fileId: String) -> Bool {
        active?.id == sessionId && active?.files[fileId]?.state == .receiving
    }

    /// The upload of `fileId` ended: saved, or failed (the file waits again). Returns the
    /// session when that was its last file, which ends it.
    public mutating func uploadEnded(sessionId: String, fileId: String, saved: Bool, now: UInt64) -> Session? {
        guard var session = active, session.id == sessionId, var file = session.files[fileId], file.state == .receiving else {
            return nil
        }
        file.state = saved ? .saved : .waiting
        session.files[fileId] = file
        session.lastActivity = now
        guard session.isComplete else {
            active = session
            return nil
        }
        active = nil
        return session
    }

    /// `cancel?sessionId=` from `client`: the session, which ended, or nil (403) when there is
    /// no such session of this address.
    public mutating func cancel(sessionId: String, client: String) -> Session? {
        guard let session = active, ConstantTime.equals(session.id.utf8, sessionId.utf8), session.client == client else {
            return nil
        }
        active = nil
        return session
    }

    /// §4.2's 403 "Invalid token": no active session has this id.
    static let unknownSession = HTTPError.forbidden(
        "No LocalSend session with this id is active; it finished, was cancelled or expired.")
}
