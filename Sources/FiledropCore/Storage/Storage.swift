import FiledropHTTP

/// What the core needs from the file system below the save directory: mechanism only, the
/// policy (names, limits, free space, collisions, durability) is `StoragePolicy`'s.
/// `FiledropIO.PosixStorage` implements it with openat/O_NOFOLLOW so nothing ever resolves
/// outside the save directory; tests use an in-memory fake. Class-bound: the app copies it
/// on every request, and a class existential copies as one retain (a value one goes through
/// its type's value witnesses).
public protocol Storage: AnyObject, Sendable {
    /// Starts an invisible upload in `directory`, creating missing directories; with
    /// `checksummed`, a CRC-32 of the bytes is kept as they are written. With `durable`, new
    /// directories are synced into their parents and written bytes go to write-back early.
    func createUpload(in directory: StoragePath, checksummed: Bool, durable: Bool) throws(StorageError) -> any UploadFile
    /// Opens a regular file for reading.
    func open(_ path: StoragePath) throws(StorageError) -> OpenedFile
    /// Metadata of a file or directory, nil when it does not exist.
    func metadata(_ path: StoragePath) throws(StorageError) -> FileMetadata?
    /// The visible entries of a directory (temporary and hidden state excluded).
    func list(_ directory: StoragePath) throws(StorageError) -> [FileMetadata]
    func remove(_ path: StoragePath) throws(StorageError)
    /// Renames a file or folder to `destination` (any folder below the save directory) without
    /// ever replacing: an existing destination fails with `.exists` and nothing changes. With
    /// `durable`, both folders are synced before it returns. Blocking.
    func move(_ source: StoragePath, to destination: StoragePath, durable: Bool) throws(StorageError)
    /// Makes one empty folder whose parent exists (`.notFound` otherwise; `.exists` when the
    /// name is taken); with `durable`, synced into its parent. Blocking.
    func makeDirectory(_ path: StoragePath, durable: Bool) throws(StorageError)
    /// The SHA-256 (lowercase hex) recorded with a file at upload (`UploadFile.recordSHA256`),
    /// nil when none was or the file system keeps no extended attributes. May block: on a worker.
    func recordedSHA256(_ path: StoragePath) -> String?
    /// `recordedSHA256` of each of `files` (entries of `directory` as `list` gave them), in
    /// their order, nil where there is none, for the JSON listing. Blocking: on a worker.
    func recordedSHA256s(_ directory: StoragePath, files: [FileMetadata]) -> [String?]
    /// Bytes available to us on the save directory's file system: a fact, reported; whether
    /// it is enough is `StoragePolicy.hasRoom`'s decision. May block (statvfs): on a worker.
    func availableSpace() -> UInt64?
    /// Free bytes and inodes and the read-only flag of the save directory's file system, for
    /// `StoragePolicy.admission`; nil when they cannot be read. May block (statvfs): on a worker.
    func spaceReading() -> SpaceReading?
}

extension Storage {
    /// Free bytes only, for a storage that knows nothing of inodes or mount flags.
    public func spaceReading() -> SpaceReading? {
        availableSpace().map { SpaceReading(availableBytes: $0) }
    }

    /// A checksummed, durable upload.
    public func createUpload(in directory: StoragePath) throws(StorageError) -> any UploadFile {
        try createUpload(in: directory, checksummed: true, durable: true)
    }
}

/// Where an upload's bytes go, whatever the kind: a new file (form, PUT) or a resumable
/// upload's partial file (tus). `GuardedWriter` is the only writer, and applies the policy.
public protocol UploadSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError)
    /// True when written bytes wait for `paceWriteback()`; the writer runs it (off the event
    /// loop) before writing more.
    var writebackDue: Bool { get }
    /// Blocks: hands what was written to write-back and waits for the oldest of it once too
    /// much is under way, so one upload's dirty pages stay bounded.
    func paceWriteback() throws(StorageError)
}

/// An upload being written: invisible until `publish` succeeds. `publish` and
/// `paceWriteback` may block (fsync, rename); callers on an event loop hand them to a worker.
public protocol UploadFile: UploadSink {
    var bytesWritten: UInt64 { get }
    /// CRC-32 (zlib's) of every byte written so far; nil unless created `checksummed`.
    var crc32: UInt32? { get }
    /// Keeps the SHA-256 (lowercase hex) with the file before it is published (the xattr
    /// `user.filedrop.sha256`); a file system without extended attributes keeps nothing.
    func recordSHA256(_ hex: String)
    /// Makes the file visible as `name` in its directory. Without `replacing`, an existing
    /// entry makes it fail with `.exists` and nothing changes. With `durable`, the file and
    /// the directory are fsync'ed before it returns.
    func publish(as name: String, replacing: Bool, durable: Bool) throws(StorageError)
    /// Forgets the bytes; nothing stays on disk. Safe to call more than once.
    func discard()
}

public struct OpenedFile: Sendable {
    public var handle: any OpenFileHandle
    public var metadata: FileMetadata
    /// The SHA-256 recorded with the file (lowercase hex), for GET and HEAD's `Repr-Digest`.
    public var sha256: String?

    public init(handle: any OpenFileHandle, metadata: FileMetadata, sha256: String? = nil) {
        self.handle = handle
        self.metadata = metadata
        self.sha256 = sha256
    }
}

public struct FileMetadata: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case file, directory }
    public var name: String
    public var kind: Kind
    public var size: UInt64
    /// Modification time, nanoseconds since 1970.
    public var modified: Int64
    /// Identifies the inode for strong ETags.
    public var inode: UInt64
    /// The inode's change time (ctime), nanoseconds since 1970; 0 when unknown. It moves with
    /// every change to the file, its extended attributes included (inode(7)): with `inode`,
    /// it names one version of a file's recorded SHA-256 (`Storage.recordedSHA256s`).
    public var changed: Int64

    public init(name: String, kind: Kind, size: UInt64, modified: Int64, inode: UInt64, changed: Int64 = 0) {
        self.name = name
        self.kind = kind
        self.size = size
        self.modified = modified
        self.inode = inode
        self.changed = changed
    }
}

public enum StorageError: Error, Equatable, Sendable {
    case exists
    case notFound
    case notADirectory
    case isADirectory
    /// Removing a directory that still has entries.
    case notEmpty
    case noSpace
    case readOnly
    case permissionDenied
    case nameTooLong
    /// A symlink or something else that is not a plain file or directory.
    case notAllowed
    /// A rename whose two names are on different file systems (EXDEV): `rename` cannot move
    /// data, only names, and the save directory has another file system mounted inside it.
    case crossDevice
    /// A rename the kernel calls invalid (EINVAL from renameat2): a folder into itself or
    /// below itself, which the app checks first but a concurrent rename can still cause.
    case movedIntoItself
    case io(call: String, errno: Int32)
}
