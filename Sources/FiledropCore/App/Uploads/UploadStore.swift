import FiledropHTTP

/// The door for uploads: the storage they go to, the `StoragePolicy` they are held to and
/// the monitor that logs them. Form parts and PUT bodies are planned and opened here; tus
/// checks room and gets its writer here too, so every kind meets the same guard. Reads and
/// DELETE do not come through here: they use the storage directly.
public struct UploadStore: Sendable {
    private let storage: any Storage
    public let policy: StoragePolicy
    public let monitor: UploadMonitor
    /// A drop box: the answer to an upload does not say what the file was saved as (a
    /// renamed "hello (2).txt" would tell an anonymous sender which names exist), and every
    /// upload goes to the top folder (`placement(in:)`).
    public var withholdsStoredNames = false
    /// SHA-256 of every upload as it streams (`sha256 = on`); nil computes none.
    public var hashing: (any UploadHashing)?

    public init(storage: any Storage, policy: StoragePolicy, monitor: UploadMonitor) {
        self.storage = storage
        self.policy = policy
        self.monitor = monitor
    }

    /// The name policy, for the routes that turn URLs and metadata into storage paths.
    public var names: FileNamePolicy { policy.names }

    /// Checks what can be checked before any byte arrives (the declared size, then the name);
    /// the plan's `open()` then makes the invisible file. `expectedSize` is the Content-Length
    /// when the client sent one. `checksummed`: keep a CRC-32 while streaming (for clients
    /// that asked for JSON). `method`: how the bytes arrive, for the metrics.
    public func plan(
        directory: StoragePath, clientName: String, expectedSize: UInt64?, client: String,
        checksummed: Bool, method: UploadMethod
    ) throws(HTTPError) -> UploadPlan {
        try policy.checkSize(expectedSize ?? 0)
        let name = try names.storedName(from: clientName)
        return UploadPlan(
            store: self, directory: placement(in: directory), name: name, expectedSize: expectedSize, client: client,
            checksummed: checksummed, method: method)
    }

    /// The folder an upload asking for `directory` goes to. In a drop box, the top folder
    /// whatever it asked for: making `secret.txt/probe` fails when `secret.txt` is a file and
    /// succeeds when it is missing, so folders would tell an anonymous sender which names
    /// exist. The file keeps its name (renamed when taken), and the answer is the same.
    public func placement(in directory: StoragePath) -> StoragePath {
        withholdsStoredNames ? .root : directory
    }

    /// The guard before an upload's file is opened, the same for every kind and for
    /// `/healthz` (`SaveDirectoryHealth`): `StoragePolicy.admission` over a fresh reading, so
    /// `expected` more bytes (the declared size, nil when unknown) must fit. Blocking
    /// (statvfs, which can hang on NFS): on a worker.
    func checkRoom(for expected: UInt64?) throws(HTTPError) {
        if let refusal = policy.admission(for: expected, space: storage.spaceReading()) { throw refusal }
    }

    /// The guarded writer for `sink`, whose file already holds `size` bytes, held to `limit`,
    /// feeding `digest` (a tus upload's running SHA-256 goes from PATCH to PATCH).
    func writer(
        for sink: any UploadSink, startingAt size: UInt64 = 0, limit: SizeLimit? = nil,
        digest: (any UploadDigestStream)? = nil
    ) -> GuardedWriter {
        GuardedWriter(
            sink: sink, policy: policy, storage: storage, startingAt: size, limit: limit ?? policy.sizeLimit, digest: digest)
    }

    /// Blocking: makes missing folders (synced into their parents when durable) and opens
    /// the invisible file.
    func createUpload(in directory: StoragePath, checksummed: Bool) throws(StorageError) -> any UploadFile {
        try storage.createUpload(in: directory, checksummed: checksummed, durable: policy.durable)
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
    /// How the file comes in, for the event stream and the metrics.
    let method: UploadMethod

    /// Blocking, for a worker thread: checks free space, makes missing folders (fsync'ed
    /// into their parents), opens the invisible file, and logs that the upload started.
    public func open() -> Result<PendingUpload, HTTPError> {
        let file: any UploadFile
        do throws(HTTPError) {
            try store.checkRoom(for: expectedSize)
            do throws(StorageError) {
                file = try store.createUpload(in: directory, checksummed: checksummed)
            } catch {
                throw error.httpError
            }
        } catch {
            return .failure(error)
        }
        let progress = store.monitor.started(
            name: directory.appending(checkedName: name).description, expectedSize: expectedSize,
            client: client, method: method)
        return .success(
            PendingUpload(
                store: store, file: file, directory: directory, name: name, expectedSize: expectedSize,
                progress: progress))
    }

    /// `open()` as the work a body waits for, and `then` with its result on the loop.
    func opening(then: @escaping (Result<PendingUpload, HTTPError>) throws(HTTPError) -> Void)
        -> (work: BlockingWork, then: () throws(HTTPError) -> Void)
    {
        let slot = ResultSlot<Result<PendingUpload, HTTPError>>()
        return (
            BlockingWork("open upload") { slot.value = self.open() },
            { () throws(HTTPError) in try then(slot.take("open upload")) }
        )
    }
}

/// One file being received through its guarded writer, then either committed (visible,
/// durable) or discarded (nothing left). What can block the thread (write-back, the
/// free-space check, fsync, the link or rename) is handed out as `BlockingWork`, never run
/// on the caller's loop.
public final class PendingUpload {
    private let store: UploadStore
    private let file: any UploadFile
    private var writer: GuardedWriter
    public let directory: StoragePath
    public let requestedName: String
    private let expectedSize: UInt64?
    /// The store's drop-box rule, for the answer to this upload.
    var withholdsStoredNames: Bool { store.withholdsStoredNames }
    private let progress: UploadProgress
    private var finished = false

    init(
        store: UploadStore, file: any UploadFile, directory: StoragePath, name: String, expectedSize: UInt64?,
        progress: UploadProgress
    ) {
        self.store = store
        self.file = file
        self.writer = store.writer(for: file, digest: store.hashing?.makeStream())
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
        do throws(GuardedWriter.Refusal) {
            try writer.write(bytes)
        } catch {
            let failure =
                switch error {
                case .overLimit(let refusal): refusal
                case .storage(let storageError): storageError.httpError
                }
            discard(reason: failure.message)
            throw failure
        }
        progress.advance(to: writer.size)
    }

    /// When the writer wants write-back to catch up or free space checked: the work, and
    /// what to do on the loop once it ran. The upload pauses meanwhile, so one upload's dirty
    /// pages stay bounded without the loop ever waiting for the disk.
    public func writebackPacing() -> (work: BlockingWork, then: () throws(HTTPError) -> Void)? {
        guard let pause = writer.pause() else { return nil }
        return (
            pause.work,
            { () throws(HTTPError) in
                do throws(StorageError) {
                    try pause.then()
                } catch {
                    self.discard(reason: error.httpError.message)
                    throw error.httpError
                }
            }
        )
    }

    /// Makes the file visible under the first name the collision policy allows; the fsync
    /// and link/rename run as blocking work (a rename over a big file frees its blocks).
    /// With `expectedSHA256` (the client's `Repr-Digest`), only if the bytes have that hash;
    /// it is checked only when hashing is on.
    public func commit(expectedSHA256: [UInt8]? = nil) -> Deferred<Result<StoredFile, HTTPError>> {
        if let expectedSize, expectedSize != file.bytesWritten {
            discard(reason: "size mismatch")
            return .ready(.failure(.truncatedBody))
        }
        // From here the file belongs to the work, which publishes or discards it.
        finished = true
        return .blocking("publish", { self.publish(expectedSHA256: expectedSHA256) }, then: { .ready($0) })
    }

    /// The body's SHA-256 differs from the one its client sent.
    static let digestMismatch = HTTPError.badRequest(
        "The file's SHA-256 differs from the Repr-Digest (or Digest) the request carried, so it was not saved.")

    /// On a worker thread: waits for the hash, records it with the file, then publishes.
    private func publish(expectedSHA256: [UInt8]?) -> Result<StoredFile, HTTPError> {
        do throws(HTTPError) {
            let sha256 = writer.digest?.finish()
            if let expectedSHA256, let sha256, sha256 != expectedSHA256 { throw Self.digestMismatch }
            let name: String
            do throws(StorageError) {
                if let sha256 { file.recordSHA256(SHA256Text.hex(sha256)) }
                name = try store.policy.publish(file, directory: directory, name: requestedName)
            } catch {
                throw error.httpError
            }
            let stored = StoredFile(
                path: directory.appending(checkedName: name), size: file.bytesWritten, crc32: file.crc32,
                sha256: sha256.map(SHA256Text.hex))
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
    /// Lowercase hex; nil when hashing is off.
    public var sha256: String?

    public init(path: StoragePath, size: UInt64, crc32: UInt32?, sha256: String? = nil) {
        self.path = path
        self.size = size
        self.crc32 = crc32
        self.sha256 = sha256
    }

    /// `/files/a%20b/c.txt`: every component percent-encoded.
    public var url: String {
        LocationPath(components: CollectionOfOne(Route.filesFolder) + path.components).description
    }
}
