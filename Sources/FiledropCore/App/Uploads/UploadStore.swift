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
    /// A drop box: the answer to an upload does not say what the file was saved as (a
    /// renamed "hello (2).txt" would tell an anonymous sender which names exist).
    public var withholdsStoredNames = false

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

    /// Checks what can be checked before any byte arrives (the name, the declared size); the
    /// plan's `open()` then makes the invisible file. `expectedSize` is the Content-Length
    /// when the client sent one. `checksummed`: keep a CRC-32 while streaming (for clients
    /// that asked for JSON).
    public func plan(directory: StoragePath, clientName: String, expectedSize: UInt64?, client: String,
                     checksummed: Bool) throws(HTTPError) -> UploadPlan {
        let name = try names.storedName(from: clientName)
        try checkSize(expectedSize ?? 0)
        return UploadPlan(store: self, directory: directory, name: name, expectedSize: expectedSize, client: client,
                          checksummed: checksummed)
    }

    public func checkSize(_ size: UInt64) throws(HTTPError) {
        if let maxFileSize, size > maxFileSize { throw .contentTooLarge(limit: maxFileSize) }
    }

    /// Publishes under the first free name the collision policy allows.
    func publish(_ file: any UploadFile, directory: StoragePath, name: String) throws(HTTPError) -> String {
        do throws(StorageError) {
            return try publishKeepingCause(file, directory: directory, name: name)
        } catch {
            throw error.httpError
        }
    }

    /// `publish` with the storage failure itself: a resumable upload keeps its data on some
    /// failures and not on others, so it needs the cause, not the client's sentence.
    func publishKeepingCause(_ file: any UploadFile, directory: StoragePath, name: String) throws(StorageError) -> String {
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

/// An upload that passed the checks of its head and has no file yet.
public struct UploadPlan: Sendable {
    let store: UploadStore
    let directory: StoragePath
    let name: String
    let expectedSize: UInt64?
    let client: String
    let checksummed: Bool

    /// Blocking, for a worker thread: checks free space, makes missing folders (fsync'ed
    /// into their parents), opens the invisible file, and logs that the upload started.
    public func open() -> Result<PendingUpload, HTTPError> {
        let storage = store.storage
        if let available = storage.availableSpace(), available < (expectedSize ?? 0) + store.minFreeSpace {
            return .failure(.insufficientStorage("The server's disk is too full for this upload."))
        }
        let file: any UploadFile
        do {
            file = try storage.createUpload(in: directory, checksummed: checksummed)
        } catch {
            return .failure(error.httpError)
        }
        let progress = store.monitor.started(name: directory.appending(checkedName: name).description, expectedSize: expectedSize,
                                             client: client)
        return .success(PendingUpload(store: store, file: file, directory: directory, name: name, expectedSize: expectedSize,
                                      progress: progress))
    }

    /// `open()` as the work a body waits for, and `then` with its result on the loop.
    func opening(then: @escaping (Result<PendingUpload, HTTPError>) throws(HTTPError) -> Void)
        -> (work: BlockingWork, then: () throws(HTTPError) -> Void) {
        let slot = ResultSlot<Result<PendingUpload, HTTPError>>()
        return (BlockingWork("open upload") { slot.value = self.open() }, { () throws(HTTPError) in try then(slot.take("open upload")) })
    }
}

/// One file being received: enforces the size limit as bytes arrive, and either commits
/// (visible, durable) or discards (nothing left). What can block the thread (write-back,
/// fsync, the link or rename) is handed out as `BlockingWork`, never run on the caller's loop.
public final class PendingUpload {
    private let store: UploadStore
    private let file: any UploadFile
    public let directory: StoragePath
    public let requestedName: String
    private let expectedSize: UInt64?
    private let progress: UploadProgress
    private var finished = false

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

    /// When the file wants its written pages handed to write-back (and free space checked):
    /// the work, and what to do on the loop once it ran. The upload pauses meanwhile, so one
    /// upload's dirty pages stay bounded without the loop ever waiting for the disk.
    public func writebackPacing() -> (work: BlockingWork, then: () throws(HTTPError) -> Void)? {
        guard file.writebackDue else { return nil }
        let slot = ResultSlot<Result<Void, StorageError>>()
        let work = BlockingWork("write-back") { [file] in
            slot.value = Result { () throws(StorageError) in try file.paceWriteback() }
        }
        return (work, { () throws(HTTPError) in
            guard case .failure(let failure) = slot.take("write-back") else { return }
            self.discard(reason: failure.httpError.message)
            throw failure.httpError
        })
    }

    /// Makes the file visible under the first name the collision policy allows; the fsync
    /// and link/rename run as blocking work (a rename over a big file frees its blocks).
    public func commit() -> Deferred<Result<StoredFile, HTTPError>> {
        if let expectedSize, expectedSize != file.bytesWritten {
            discard(reason: "size mismatch")
            return .ready(.failure(.truncatedBody))
        }
        // From here the file belongs to the work, which publishes or discards it.
        finished = true
        return .blocking("publish", { self.publish() }, then: { .ready($0) })
    }

    /// On a worker thread.
    private func publish() -> Result<StoredFile, HTTPError> {
        do throws(HTTPError) {
            let name = try store.publish(file, directory: directory, name: requestedName)
            let stored = StoredFile(path: directory.appending(checkedName: name), size: file.bytesWritten, crc32: file.crc32)
            progress.finished(stored: stored)
            return .success(stored)
        } catch {
            file.discard()
            progress.failed(reason: error.message)
            return .failure(error)
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
