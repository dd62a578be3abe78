/// One record of the event stream (issue 21): an upload started, progressed, finished or
/// failed, or a stored file was deleted. `UploadMonitor` makes every one of them; the I/O
/// layer delivers them to the on-upload hook, the webhook and the log, off the event loops.
public struct UploadEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case started, progress, finished, failed, deleted
    }

    public var kind: Kind
    /// Which upload this is about: progress records of one upload coalesce by it. 0 for `deleted`.
    public var uploadID: UInt64
    /// The path below the save directory (`a/b.txt`), as stored once finished.
    public var path: String
    /// Bytes received so far; the file's size once finished.
    public var size: UInt64
    /// The declared size, when the client gave one.
    public var expectedSize: UInt64?
    /// The client's address.
    public var client: String
    /// nil for `deleted`.
    public var method: UploadMethod?
    /// Seconds since 1970 when it happened.
    public var time: Int64
    /// `failed`: why.
    public var reason: String?
    /// `finished`: the file's SHA-256 in hex, when the store computed it.
    public var sha256: String?

    public init(
        kind: Kind, uploadID: UInt64, path: String, size: UInt64, expectedSize: UInt64? = nil, client: String,
        method: UploadMethod?, time: Int64, reason: String? = nil, sha256: String? = nil
    ) {
        self.kind = kind
        self.uploadID = uploadID
        self.path = path
        self.size = size
        self.expectedSize = expectedSize
        self.client = client
        self.method = method
        self.time = time
        self.reason = reason
        self.sha256 = sha256
    }

    /// The last path component: the file's name.
    public var name: String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// `/files/a%20b/c.txt`: the file's URL path on this server.
    public var urlPath: String {
        "/files/" + path.split(separator: "/").map { percentEncodedPathComponent(String($0)) }.joined(separator: "/")
    }

    /// `upload.finished`, `file.deleted`: the `event` member of the JSON.
    public var eventName: String {
        kind == .deleted ? "file.deleted" : "upload.\(kind.rawValue)"
    }

    /// Progress may be coalesced or dropped under pressure; the others are what people act on.
    public var isProgress: Bool { kind == .progress }
}

/// Where `UploadMonitor` hands its records. `publish` is called on event loops and workers:
/// it must only queue, never block.
public protocol UploadEventSink: Sendable {
    func publish(_ event: UploadEvent)
}
