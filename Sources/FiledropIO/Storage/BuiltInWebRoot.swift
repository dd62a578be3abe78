import FiledropCore
import Synchronization

/// The page's files compiled into the binary, served as a read-only `Storage` of one folder:
/// the daemon needs no web root on disk. Each file is decoded from its base64 the first time
/// it is asked for and kept (the page is a few hundred KiB, and only what browsers fetch is
/// ever decoded).
public final class BuiltInWebRoot: Storage, Sendable {
    /// One file as the build recorded it: its name, when it last changed, and its bytes as
    /// base64 (RFC 4648 §4), in the binary's read-only data until asked for.
    public typealias File = (name: String, modifiedSeconds: Int64, base64: StaticString)

    private struct Decoded: Sendable {
        let contents: FileContents
        let metadata: FileMetadata
    }

    private let files: [String: File]
    private let decoded = Mutex<[String: Decoded]>([:])

    public init(files: [File]) {
        self.files = Dictionary(files.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The bytes of `name`, nil when the build had no such file (or its base64 is broken,
    /// which the build tool never writes).
    public func bytes(of name: String) -> [UInt8]? {
        decode(name)?.contents.bytes
    }

    public func open(_ path: StoragePath) throws(StorageError) -> OpenedFile {
        guard let name = path.name else { throw .isADirectory }
        guard path.isTopLevel, let file = decode(name) else { throw .notFound }
        return OpenedFile(handle: file.contents, metadata: file.metadata)
    }

    public func metadata(_ path: StoragePath) throws(StorageError) -> FileMetadata? {
        guard let name = path.name else {
            return FileMetadata(name: "", kind: .directory, size: 0, modified: 0, inode: 1)
        }
        return path.isTopLevel ? decode(name)?.metadata : nil
    }

    public func list(_ directory: StoragePath) throws(StorageError) -> [FileMetadata] {
        guard directory.name == nil else { throw .notFound }
        return files.keys.sorted().compactMap { decode($0)?.metadata }
    }

    public func createUpload(in directory: StoragePath, checksummed: Bool, durable: Bool) throws(StorageError) -> any UploadFile {
        throw .readOnly
    }

    public func remove(_ path: StoragePath) throws(StorageError) { throw .readOnly }
    public func move(_ source: StoragePath, to destination: StoragePath, durable: Bool) throws(StorageError) { throw .readOnly }
    public func makeDirectory(_ path: StoragePath, durable: Bool) throws(StorageError) { throw .readOnly }
    public func recordedSHA256(_ path: StoragePath) -> String? { nil }
    public func recordedSHA256s(_ directory: StoragePath, files: [FileMetadata]) -> [String?] { files.map { _ in nil } }
    public func availableSpace() -> UInt64? { 0 }

    private func decode(_ name: String) -> Decoded? {
        if let known = decoded.withLock({ $0[name] }) { return known }
        guard let file = files[name], let bytes = Base64.decode(Substring(file.base64.description)) else { return nil }
        // The ETag is made of the inode, size and time: a digest of the bytes stands in for
        // the inode, so every daemon built from the same page gives the same ETags.
        let metadata = FileMetadata(
            name: name, kind: .file, size: UInt64(bytes.count),
            modified: file.modifiedSeconds * 1_000_000_000, inode: bytes.withUnsafeBytes(FNV1a.hash))
        let entry = Decoded(contents: FileContents(bytes), metadata: metadata)
        return decoded.withLock { known in
            if let first = known[name] { return first }
            known[name] = entry
            return entry
        }
    }
}
