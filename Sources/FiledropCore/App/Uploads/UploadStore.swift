/// The storage policy, in one place: names, limits, free space, collisions, durability.
/// Every upload path (multipart, raw PUT/POST) goes through it, so they all behave alike.
public struct UploadStore: Sendable {
    public var storage: any Storage
    public var names: FileNamePolicy
    public var collision: CollisionPolicy
    /// Per file, nil for no limit.
    public var maxFileSize: UInt64?
    /// Kept free on the disk: uploads that would eat into it are refused (507).
    public var minFreeSpace: UInt64
    /// fsync the file and its directory before reporting success.
    public var durable: Bool
    public var monitor: UploadMonitor

    public init(storage: any Storage, names: FileNamePolicy, collision: CollisionPolicy, maxFileSize: UInt64?,
                minFreeSpace: UInt64, durable: Bool, monitor: UploadMonitor) {
        self.storage = storage
        self.names = names
        self.collision = collision
        self.maxFileSize = maxFileSize
        self.minFreeSpace = minFreeSpace
        self.durable = durable
        self.monitor = monitor
    }

    /// Checks what can be checked before any byte arrives, then opens an invisible file.
    /// `expectedSize` is the Content-Length when the client sent one.
    /// `checksummed`: keep a CRC-32 while streaming (for clients that asked for JSON).
    public func begin(directory: StoragePath, clientName: String, expectedSize: UInt64?, client: String,
                      checksummed: Bool) throws(HTTPError) -> PendingUpload {
        let name = try names.storedName(from: clientName)
        try checkSize(expectedSize ?? 0)
        if let available = storage.availableSpace(), available < (expectedSize ?? 0) + minFreeSpace {
            throw .insufficientStorage("The server's disk is too full for this upload.")
        }
        let file: any UploadFile
        do {
            file = try storage.createUpload(in: directory, checksummed: checksummed)
        } catch {
            throw error.httpError
        }
        return PendingUpload(store: self, file: file, directory: directory, name: name, expectedSize: expectedSize,
                             progress: monitor.started(name: directory.appending(checkedName: name).description, expectedSize: expectedSize, client: client))
    }

    public func checkSize(_ size: UInt64) throws(HTTPError) {
        if let maxFileSize, size > maxFileSize { throw .contentTooLarge(limit: maxFileSize) }
    }

    /// Publishes under the first free name the collision policy allows.
    func publish(_ file: any UploadFile, directory: StoragePath, name: String) throws(HTTPError) -> String {
        do throws(StorageError) {
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
        } catch {
            throw error.httpError
        }
    }
}

/// One file being received: enforces the size limit and free space as bytes arrive,
/// and either commits (visible, durable) or discards (nothing left).
public final class PendingUpload {
    private let store: UploadStore
    private let file: any UploadFile
    public let directory: StoragePath
    public let requestedName: String
    private let expectedSize: UInt64?
    private let progress: UploadProgress
    private var finished = false
    private var bytesSinceSpaceCheck: UInt64 = 0
    /// Free space is re-checked after this many bytes (a stream of unknown length).
    private static let spaceCheckInterval: UInt64 = 64 << 20

    init(store: UploadStore, file: any UploadFile, directory: StoragePath, name: String, expectedSize: UInt64?, progress: UploadProgress) {
        self.store = store
        self.file = file
        self.directory = directory
        self.requestedName = name
        self.expectedSize = expectedSize
        self.progress = progress
    }

    deinit {
        if !finished { discard(reason: "abandoned") }
    }

    public var size: UInt64 { file.bytesWritten }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) {
        let total = file.bytesWritten + UInt64(bytes.count)
        do throws(HTTPError) {
            try store.checkSize(total)
            bytesSinceSpaceCheck += UInt64(bytes.count)
            if bytesSinceSpaceCheck >= Self.spaceCheckInterval {
                bytesSinceSpaceCheck = 0
                if let available = store.storage.availableSpace(), available < store.minFreeSpace {
                    throw HTTPError.insufficientStorage("The server's disk is too full for this upload.")
                }
            }
            do throws(StorageError) {
                try file.write(bytes)
            } catch {
                throw error.httpError
            }
        } catch {
            discard(reason: error.message)
            throw error
        }
        progress.advance(to: total)
    }

    /// Makes the file visible; returns what was stored.
    public func commit() throws(HTTPError) -> StoredFile {
        if let expectedSize, expectedSize != file.bytesWritten {
            discard(reason: "size mismatch")
            throw .truncatedBody
        }
        do throws(HTTPError) {
            let name = try store.publish(file, directory: directory, name: requestedName)
            finished = true
            let stored = StoredFile(path: directory.appending(checkedName: name), size: file.bytesWritten, crc32: file.crc32)
            progress.finished(stored: stored)
            return stored
        } catch {
            discard(reason: error.message)
            throw error
        }
    }

    public func discard(reason: String) {
        guard !finished else { return }
        finished = true
        file.discard()
        progress.failed(reason: reason)
    }
}

/// A file that is now visible in the save directory.
public struct StoredFile: Sendable, Equatable {
    public var path: StoragePath
    public var size: UInt64
    public var crc32: UInt32?

    public init(path: StoragePath, size: UInt64, crc32: UInt32?) {
        self.path = path
        self.size = size
        self.crc32 = crc32
    }

    /// `/files/a%20b/c.txt`: every component percent-encoded.
    public var url: String {
        "/files/" + path.components.map { percentEncodedPathComponent($0) }.joined(separator: "/")
    }
}
