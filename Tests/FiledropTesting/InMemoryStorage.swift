import Synchronization

@testable import FiledropCore

/// A `Storage` in memory with the same visibility rules as the real one: an upload is
/// invisible until published, publishing never replaces unless asked. Lets upload-policy
/// tests run without a disk (hummingbird's `.router` mode next to `.live`).
final class InMemoryStorage: Storage, Sendable {
    struct State {
        var files: [StoragePath: [UInt8]] = [:]
        var directories: Set<StoragePath> = [.root]
        var pendingUploads = 0
        var freeSpace: UInt64? = 1 << 40
        /// Once this many bytes were written by any upload, free space reads as `to` (someone
        /// else filling the disk meanwhile).
        var spaceDrop: (after: UInt64, to: UInt64)?
        /// Bytes written by every upload and partial file so far.
        var written: UInt64 = 0
        /// `written` at each free-space question: where the guard asked.
        var spaceQueries: [UInt64] = []
        /// Writes fail with this once that many bytes are stored (a disk filling up).
        var capacity: UInt64?
        /// How often uploads asked for write-back to catch up.
        var writebackPacings = 0
        /// Publishing fails with this while set (an immutable folder, a permission problem).
        var publishFailure: StorageError?
        /// Creating an upload fails with this while set (a read-only mount); each try counts.
        var createFailure: StorageError?
        var createAttempts = 0
        /// The SHA-256 recorded with each published file (the xattr of the real storage).
        var sha256: [StoragePath: String] = [:]
    }

    /// Uploads ask for write-back pacing every this many bytes; nil never.
    let writebackEvery: UInt64?

    init(writebackEvery: UInt64? = nil) {
        self.writebackEvery = writebackEvery
    }

    let state = Mutex(State())

    func createUpload(in directory: StoragePath, checksummed: Bool, durable: Bool) throws(StorageError) -> any UploadFile {
        let failure = state.withLock { state in
            state.createAttempts += 1
            return state.createFailure
        }
        if let failure { throw failure }
        state.withLock { state in
            var path = StoragePath.root
            for component in directory.components {
                path = path.appending(checkedName: component)
                state.directories.insert(path)
            }
            state.pendingUploads += 1
        }
        return MemoryUpload(storage: self, directory: directory)
    }

    func open(_ path: StoragePath) throws(StorageError) -> OpenedFile {
        throw .notAllowed
    }

    func metadata(_ path: StoragePath) throws(StorageError) -> FileMetadata? {
        state.withLock { state in
            if let bytes = state.files[path] {
                return FileMetadata(name: path.name ?? "", kind: .file, size: UInt64(bytes.count), modified: 0, inode: 1)
            }
            return state.directories.contains(path)
                ? FileMetadata(name: path.name ?? "", kind: .directory, size: 0, modified: 0, inode: 2) : nil
        }
    }

    func list(_ directory: StoragePath) throws(StorageError) -> [FileMetadata] {
        state.withLock { state in
            state.files.filter { $0.key.parent == directory }.map {
                FileMetadata(name: $0.key.name ?? "", kind: .file, size: UInt64($0.value.count), modified: 0, inode: 1)
            }
        }
    }

    func remove(_ path: StoragePath) throws(StorageError) {
        guard state.withLock({ $0.files.removeValue(forKey: path) }) != nil else { throw .notFound }
    }

    /// Moves a file, or a folder with everything below it, as renameat2(RENAME_NOREPLACE) does.
    func move(_ source: StoragePath, to destination: StoragePath, durable: Bool) throws(StorageError) {
        let failure: StorageError? = state.withLock { state in
            guard state.directories.contains(destination.parent) else { return .notFound }
            if state.files[destination] != nil || state.directories.contains(destination) { return .exists }
            if let bytes = state.files.removeValue(forKey: source) {
                state.files[destination] = bytes
                return nil
            }
            guard !source.isRoot, state.directories.contains(source) else { return .notFound }
            func moved(_ path: StoragePath) -> StoragePath? {
                guard path.components.starts(with: source.components) else { return nil }
                return StoragePath(checkedComponents: destination.components + path.components.dropFirst(source.components.count))
            }
            state.directories = Set(state.directories.map { moved($0) ?? $0 })
            state.files = Dictionary(uniqueKeysWithValues: state.files.map { (moved($0.key) ?? $0.key, $0.value) })
            return nil
        }
        if let failure { throw failure }
    }

    func makeDirectory(_ path: StoragePath, durable: Bool) throws(StorageError) {
        let failure: StorageError? = state.withLock { state in
            if state.files[path] != nil || state.directories.contains(path) { return .exists }
            guard state.directories.contains(path.parent) else { return .notFound }
            state.directories.insert(path)
            return nil
        }
        if let failure { throw failure }
    }

    func recordedSHA256(_ path: StoragePath) -> String? {
        state.withLock { $0.sha256[path] }
    }

    func recordedSHA256s(_ directory: StoragePath, files: [FileMetadata]) -> [String?] {
        state.withLock { state in files.map { state.sha256[directory.appending(checkedName: $0.name)] } }
    }

    func availableSpace() -> UInt64? {
        state.withLock { state in
            state.spaceQueries.append(state.written)
            if let drop = state.spaceDrop, state.written >= drop.after { return drop.to }
            return state.freeSpace
        }
    }

    func recordWrite(_ count: Int) {
        state.withLock { $0.written += UInt64(count) }
    }

    var files: [StoragePath: [UInt8]] { state.withLock { $0.files } }
    var directories: Set<StoragePath> { state.withLock { $0.directories } }
    var pendingUploads: Int { state.withLock { $0.pendingUploads } }
}

final class MemoryUpload: UploadFile {
    private let storage: InMemoryStorage
    private let directory: StoragePath
    private var bytes: [UInt8] = []
    private var open = true
    private var pacedThrough: UInt64 = 0
    private var sha256: String?

    init(storage: InMemoryStorage, directory: StoragePath) {
        self.storage = storage
        self.directory = directory
    }

    var bytesWritten: UInt64 { UInt64(bytes.count) }
    var crc32: UInt32? { 0 }

    func write(_ chunk: UnsafeRawBufferPointer) throws(StorageError) {
        let stored = storage.state.withLock { $0.files.values.reduce(0) { $0 + UInt64($1.count) } }
        if let capacity = storage.state.withLock({ $0.capacity }), stored + bytesWritten + UInt64(chunk.count) > capacity {
            throw .noSpace
        }
        bytes.append(contentsOf: chunk)
        storage.recordWrite(chunk.count)
    }

    /// Memory has no write-back; `writebackEvery` stands in for it so tests see the pauses.
    var writebackDue: Bool { storage.writebackEvery.map { bytesWritten >= pacedThrough + $0 } ?? false }

    func paceWriteback() throws(StorageError) {
        pacedThrough = bytesWritten
        storage.state.withLock { $0.writebackPacings += 1 }
    }

    func recordSHA256(_ hex: String) {
        sha256 = hex
    }

    func publish(as name: String, replacing: Bool, durable: Bool) throws(StorageError) {
        let path = directory.appending(checkedName: name)
        let result: StorageError? = storage.state.withLock { state in
            if let failure = state.publishFailure { return failure }
            if !replacing && (state.files[path] != nil || state.directories.contains(path)) { return .exists }
            state.files[path] = bytes
            state.sha256[path] = sha256
            state.pendingUploads -= 1
            return nil
        }
        if let result { throw result }
        open = false
    }

    func discard() {
        guard open else { return }
        open = false
        storage.state.withLock { $0.pendingUploads -= 1 }
    }
}
