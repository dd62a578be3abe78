import FiledropHTTP
import Synchronization

/// What every event loop shares of the LocalSend receiver: the sessions (`LocalSendSessions`,
/// behind a mutex), our device as senders see it (its fingerprint follows the certificate),
/// the clock and the maker of session ids and tokens. The daemon keeps one across reloads, so
/// a reload does not drop a session in progress; the rules (PIN, access mode) come from the
/// app's configuration at each request.
public final class LocalSendReceiver: Sendable {
    private let sessions: Mutex<LocalSendSessions>
    private let identity: Mutex<LocalSendDevice>
    private let log: any LogSink
    /// Monotonic nanoseconds.
    let now: @Sendable () -> UInt64
    private let makeID: @Sendable () -> String
    /// The LocalSend port as bound (`localsend-port`, or the one port 0 got); fixed for the run.
    public let port: Int?

    public init(
        device: LocalSendDevice, idleTimeout: UInt64, log: any LogSink, now: @escaping @Sendable () -> UInt64,
        makeID: @escaping @Sendable () -> String = { UnguessableID.random() }
    ) {
        sessions = Mutex(LocalSendSessions(idleTimeout: idleTimeout))
        identity = Mutex(device)
        port = device.port
        self.log = log
        self.now = now
        self.makeID = makeID
    }

    /// Our device, with the current fingerprint.
    public var device: LocalSendDevice { identity.withLock { $0 } }

    /// A renewed or re-issued certificate: senders see the new fingerprint from now on.
    public func updateFingerprint(_ fingerprint: String) {
        identity.withLock { $0.fingerprint = fingerprint }
    }

    /// The session in progress, for tests and the status line.
    public var activeSession: LocalSendSessions.Session? {
        sessions.withLock { $0.active }
    }

    /// Ends an idle session (the daemon calls this every tick, so its end is logged on time;
    /// every request does it too).
    public func expireIdle() {
        if let expired = sessions.withLock({ $0.expire(now: now()) }) { logEnd(expired, .expired) }
    }

    /// Runs `body` on the sessions after ending an idle one.
    func withSessions<Result>(_ body: (inout LocalSendSessions, UInt64) -> Result) -> Result {
        let time = now()
        let (expired, result) = sessions.withLock { sessions in
            let expired = sessions.expire(now: time)
            return (expired, body(&sessions, time))
        }
        if let expired { logEnd(expired, .expired) }
        return result
    }

    func newID() -> String { makeID() }

    func logStart(_ session: LocalSendSessions.Session) {
        let total = session.files.values.reduce(UInt64(0)) { $0 &+ $1.offer.size }
        log.log(
            LogEvent(
                level: .notice,
                message: "localsend session from \(session.sender): \(session.files.count) file(s), "
                    + ByteCount.format(total),
                fields: fields(session) + [("files", String(session.files.count)), ("expected", String(total))]))
    }

    func logEnd(_ session: LocalSendSessions.Session, _ ending: LocalSendSessions.Ending) {
        let saved = session.saved
        let unfinished = session.files.count - saved
        let level: LogLevel = ending == .finished ? .info : .notice
        log.log(
            LogEvent(
                level: level, message: "localsend session \(ending.rawValue): \(saved) file(s) saved, \(unfinished) not",
                fields: fields(session) + [("ending", ending.rawValue), ("saved", String(saved))]))
    }

    private func fields(_ session: LocalSendSessions.Session) -> [(key: String, value: String)] {
        [("session", session.id), ("client", session.client), ("sender", session.sender)]
    }
}
