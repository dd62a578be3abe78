/// How `PosixStorage` trades durability for speed.
public struct StorageOptions: Sendable, Equatable {
    /// Durable writes. Off, `publish(durable: true)` skips both fsyncs and uploads skip early
    /// write-back: for tmpfs, tests and people who accept losing the last seconds on power loss.
    public var fsync: Bool
    /// Every this many bytes an upload starts write-back of what it just wrote
    /// (sync_file_range) and, with a few chunks under way, waits for the oldest, so dirty
    /// pages stay bounded (about five chunks per upload) and the fsync at publish has little
    /// left to do. 0 turns it off.
    /// Measured with 1 GiB uploads on ext4 (`StorageThroughputTests`): the fsync at publish
    /// drops from ~0.6 s to ~0.01 s and the overall rate stays that of write+fsync and of
    /// `dd conv=fsync`; 2, 8 and 32 MiB were alike within noise, 8 MiB is the default.
    public var writebackChunk: Int
    /// Uploads are refused (`.noSpace`) when less than this is free, checked when an upload
    /// starts and again every `writebackChunk` bytes (every 8 MiB when that is 0).
    public var minFreeSpace: UInt64
    /// Use O_TMPFILE (an unnamed file, linked into place at publish) where the file system
    /// supports it. Off forces the fallback: a hidden `.filedrop-tmp-*` file renamed with
    /// RENAME_NOREPLACE.
    public var anonymousTemporaries: Bool

    public init(fsync: Bool = true, writebackChunk: Int = 8 << 20, minFreeSpace: UInt64 = 0, anonymousTemporaries: Bool = true) {
        precondition(writebackChunk >= 0, "writebackChunk must not be negative")
        self.fsync = fsync
        self.writebackChunk = writebackChunk
        self.minFreeSpace = minFreeSpace
        self.anonymousTemporaries = anonymousTemporaries
    }

    /// How often the free-space check runs during a write.
    var spaceCheckInterval: Int { writebackChunk > 0 ? writebackChunk : 8 << 20 }
}
