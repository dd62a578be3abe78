import FiledropHTTP

/// The storage policy, in one place: which names are stored, how large a file may be, how
/// much free space must stay, what a name collision does, and whether a stored file must
/// survive a crash. Every upload kind (form part, PUT body, tus PATCH) is held to it at the
/// same points by `GuardedWriter` and `UploadStore`; `Storage` and `PartialUploadArea` below
/// only report facts (free space) and carry out writes, syncs and links.
public struct StoragePolicy: Sendable {
    public var names: FileNamePolicy
    public var collision: CollisionPolicy
    /// Per file, nil for no limit.
    public var maxFileSize: UInt64?
    /// Kept free on the disk: uploads that would eat into it are refused (507).
    public var minFreeSpace: UInt64
    /// The one durability switch (`fsync`): on, a stored file, a new folder, a tus record
    /// and an acknowledged tus offset survive a crash or a power loss; off (tmpfs, tests,
    /// people who accept losing the last seconds), nothing is synced.
    public var durable: Bool
    /// Bytes an upload writes between two free-space checks: the write-back chunk, so the
    /// check rides on the worker hop that write-back takes anyway.
    public var spaceCheckInterval: UInt64

    public static let defaultSpaceCheckInterval: UInt64 = 8 << 20

    public init(
        names: FileNamePolicy, collision: CollisionPolicy, maxFileSize: UInt64?, minFreeSpace: UInt64, durable: Bool,
        spaceCheckInterval: UInt64 = Self.defaultSpaceCheckInterval
    ) {
        precondition(spaceCheckInterval > 0, "spaceCheckInterval must be positive")
        self.names = names
        self.collision = collision
        self.maxFileSize = maxFileSize
        self.minFreeSpace = minFreeSpace
        self.durable = durable
        self.spaceCheckInterval = spaceCheckInterval
    }

    public init(configuration: Configuration) {
        self.init(
            names: FileNamePolicy(allowHidden: configuration.allowHidden), collision: configuration.onCollision,
            maxFileSize: configuration.maxUploadSize, minFreeSpace: configuration.minFreeSpace, durable: configuration.fsync)
    }

    // MARK: Size

    /// The one size limit of a stored file, for checks before and during the body.
    public var sizeLimit: SizeLimit {
        SizeLimit(bytes: maxFileSize ?? .max, refusal: .contentTooLarge(limit: maxFileSize ?? .max))
    }

    public func checkSize(_ size: UInt64) throws(HTTPError) {
        try sizeLimit.check(size)
    }

    // MARK: Free space

    /// The one free-space decision: whether `more` bytes fit and `minFreeSpace` stays free.
    /// An unknown amount (statvfs failed) is no refusal: the write itself will tell.
    public func hasRoom(for more: UInt64, available: UInt64?) -> Bool {
        guard let available else { return true }
        let (needed, overflow) = more.addingReportingOverflow(minFreeSpace)
        return !overflow && available >= needed
    }

    /// The one rule for whether a new upload may start, asked before its file is opened
    /// (`UploadStore.checkRoom`, for every upload kind) and by `/healthz`, so the two cannot
    /// disagree: nil admits, else the refusal. `expected` is the declared size; every upload
    /// counts as at least one byte, so a disk with nothing left refuses at the door (507)
    /// rather than mid-body, even when `minFreeSpace` is 0. No reading (statvfs failed)
    /// admits: the writes themselves will tell.
    public func admission(for expected: UInt64?, space: SpaceReading?) -> HTTPError? {
        guard let space else { return nil }
        if space.readOnly { return StorageError.readOnly.httpError }
        if space.availableInodes == 0 { return Self.noFreeInodes }
        guard hasRoom(for: max(expected ?? 0, 1), available: space.availableBytes) else { return Self.tooFullToStart }
        return nil
    }

    /// The refusal before an upload's file is opened, when its declared size does not fit.
    static let tooFullToStart = HTTPError.insufficientStorage("The server's disk is too full for this upload.")

    /// The refusal when the file system has no inode left for another file, whatever the bytes.
    static let noFreeInodes = HTTPError.insufficientStorage("The server's disk has no room for another file (no free inodes).")

    /// Where the next mid-body free-space check falls once `written` bytes are in: every
    /// `spaceCheckInterval` bytes, never when no minimum is kept (nothing to protect).
    func nextSpaceCheck(after written: UInt64) -> UInt64 {
        guard minFreeSpace > 0 else { return .max }
        let (next, overflow) = written.addingReportingOverflow(spaceCheckInterval)
        return overflow ? .max : next
    }

    // MARK: Collisions and durability

    /// Makes `file` visible in `directory` under the first name the collision policy allows,
    /// synced when the policy is durable. Blocking (fsync, link/rename): on a worker.
    func publish(_ file: any UploadFile, directory: StoragePath, name: String) throws(StorageError) -> String {
        switch collision {
        case .overwrite:
            try file.publish(as: name, replacing: true, durable: durable)
            return name
        case .reject:
            try file.publish(as: name, replacing: false, durable: durable)
            return name
        case .rename:
            for candidate in names.collisionCandidates(for: name) {
                do {
                    try file.publish(as: candidate, replacing: false, durable: durable)
                    return candidate
                } catch .exists {
                    continue
                }
            }
            throw StorageError.exists
        }
    }
}

/// How far an upload's bytes may go, and what the client is told past it: the file size
/// limit (413), or for a tus PATCH its Upload-Length or the room unfinished uploads leave.
public struct SizeLimit: Sendable, Equatable {
    public var bytes: UInt64
    public var refusal: HTTPError

    public init(bytes: UInt64, refusal: HTTPError) {
        self.bytes = bytes
        self.refusal = refusal
    }

    public func check(_ size: UInt64) throws(HTTPError) {
        if size > bytes { throw refusal }
    }
}
