import FiledropHTTP

/// Settings of the server as a whole (per-connection ones live in `ConnectionConfiguration`).
public struct ServerConfiguration: Sendable {
    public var connection = ConnectionConfiguration()
    /// Connections served at once. At the limit a new connection takes the slot of the
    /// oldest one that has not sent a whole request (`ConnectionSlots`); once every slot holds
    /// one, the server stops accepting (further connections wait in the listen backlog) until
    /// one closes, and kept-alive idle ones are closed to make room.
    public var maxConnections = 1024
    /// Connections one client address may hold; when the server is at least half full, an
    /// address may hold no more than its fair share (`ConnectionAdmission`). Connections over
    /// either are answered 503 and closed. When every slot is taken, a newcomer within these
    /// takes the slot of the oldest connection that has not sent a whole request (`ConnectionSlots`).
    public var maxConnectionsPerClient = 64
    /// Event-loop threads; 0 means one per CPU.
    public var threads = 0
    /// Worker threads for blocking work (fsync, publishing, password hashing); 0 means
    /// `WorkerPool.defaultThreads`.
    public var workerThreads = 0
    /// Skippable work (listings) waiting for a worker beyond this is refused with 503.
    public var workerQueueLimit = 256
    /// Told of each finished request and each refused connection (the access log, the
    /// metrics); nil tells no one.
    public var observer: (any ServerObserver)?

    public init() {}
}
