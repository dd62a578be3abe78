/// Where resumable (tus) uploads wait for their remaining bytes: per upload a partial file
/// and a small record, kept across daemon restarts and never listed or served.
/// `FiledropIO.PosixPartialUploadArea` keeps them in a hidden folder of the save directory;
/// tests use an in-memory fake.
public protocol PartialUploadArea: Sendable {
    /// Every upload left from before, for recovery at start. Records without a partial file
    /// and partial files without a record (a crash between the two) are removed, not returned.
    func recover() -> [RecoveredPartialUpload]
    /// Creates the record and an empty partial file; `.exists` when `id` is taken. With
    /// `durable`, both are synced before it returns.
    func create(id: String, record: [UInt8], durable: Bool) throws(StorageError)
    /// Replaces the record so that a crash leaves either the old one or the new one (with
    /// `durable`, even a power loss).
    func saveRecord(id: String, _ record: [UInt8], durable: Bool) throws(StorageError)
    /// Opens the partial file for appending. With `durable` (a PATCH's writer, when the
    /// policy is), what it writes goes to write-back early, as for every durable upload, so
    /// the fsync at the end of the PATCH has little left to do.
    func openForAppending(id: String, durable: Bool) throws(StorageError) -> any PartialUploadFile
    /// One upload as it is on disk right now (another daemon on the same save directory may
    /// have made or changed it): its record and the partial file's size and last write; a
    /// stat and a small read. `.notFound` when either piece is gone.
    func load(id: String) throws(StorageError) -> RecoveredPartialUpload
    /// The ids of the uploads whose record and partial file are both there. Removes nothing:
    /// another daemon may be between writing the two.
    func ids() -> [String]
    /// Forgets an upload: record and partial file. Missing pieces are not an error.
    func remove(id: String)
    /// Hands a complete partial file to the storage policy: the returned file publishes into
    /// `directory` of the save directory without replacing unless asked (the same
    /// link/rename as every other upload), and `discard` deletes the partial file. With
    /// `durable`, folders it makes are synced into their parents.
    func adopt(id: String, into directory: StoragePath, durable: Bool) throws(StorageError) -> any UploadFile
    /// Blocking: the SHA-256 of the partial file, read once. Only for an upload whose
    /// running hash was lost (a restart, a chunk cut back after a failed checksum).
    func sha256(id: String) throws(StorageError) -> [UInt8]
}

/// One upload found by `PartialUploadArea.recover()`.
public struct RecoveredPartialUpload: Sendable, Equatable {
    public var id: String
    public var record: [UInt8]
    /// Bytes in the partial file: the upload's offset.
    public var size: UInt64
    /// Last change of the partial file, seconds since 1970: when it was last written to.
    public var modified: Int64

    public init(id: String, record: [UInt8], size: UInt64, modified: Int64) {
        self.id = id
        self.record = record
        self.size = size
        self.modified = modified
    }
}

/// A partial file open for one PATCH; `write` appends.
public protocol PartialUploadFile: UploadSink {
    var size: UInt64 { get }
    /// Cuts the file back, dropping a chunk that failed its checksum.
    func truncate(to size: UInt64) throws(StorageError)
    /// Flushes to disk: an offset the client was told must survive a crash. The core calls
    /// it only when the policy is durable.
    func synchronize() throws(StorageError)
    /// Takes the upload's write lock, shared by every daemon on the save directory, without
    /// waiting: false when another open file holds it (another daemon's writer, or another
    /// request's). `.notFound` when the upload was removed or published before the lock came,
    /// so nothing is ever written to a file that left the area. The lock goes with `unlock`,
    /// when the file closes, and when the process dies.
    func tryLock() throws(StorageError) -> Bool
    func unlock()
}

extension PartialUploadArea {
    /// Opens the partial file for a lock, a size or a cut, not for a PATCH's bytes.
    public func openForAppending(id: String) throws(StorageError) -> any PartialUploadFile {
        try openForAppending(id: id, durable: false)
    }
}

extension PartialUploadFile {
    /// A file without early write-back (the in-memory fake): each PATCH's bytes are
    /// synchronized whole when it ends.
    public var writebackDue: Bool { false }
    public func paceWriteback() throws(StorageError) {}
}
