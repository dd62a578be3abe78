import Glibc

/// How `PosixStorage` writes: mechanism only. Whether to sync and how much space to keep
/// free are the core's `StoragePolicy` (`durable`, `minFreeSpace`).
public struct StorageOptions: Sendable, Equatable {
    /// Every this many bytes a durable upload starts write-back of what it just wrote
    /// (sync_file_range) and, with a few chunks under way, waits for the oldest, so dirty
    /// pages stay bounded (about five chunks per upload) and the fsync at publish has little
    /// left to do. 0 turns it off.
    /// Measured with 1 GiB uploads on ext4 (`StorageThroughputTests`): the fsync at publish
    /// drops from ~0.6 s to ~0.01 s and the overall rate stays that of write+fsync and of
    /// `dd conv=fsync`; 2, 8 and 32 MiB were alike within noise, 8 MiB is the default.
    public var writebackChunk: Int
    /// Use O_TMPFILE (an unnamed file, linked into place at publish) where the file system
    /// supports it. Off forces the fallback: a hidden `.filedrop-tmp-*` file renamed with
    /// RENAME_NOREPLACE.
    public var anonymousTemporaries: Bool
    /// The mode saved files and the folders made for them are created with (the process's
    /// umask applies on top): `save-mode` decides who besides the service reads them.
    public var fileMode: mode_t
    public var directoryMode: mode_t

    public init(
        writebackChunk: Int = 8 << 20, anonymousTemporaries: Bool = true,
        fileMode: mode_t = 0o644, directoryMode: mode_t = 0o755
    ) {
        precondition(writebackChunk >= 0, "writebackChunk must not be negative")
        self.writebackChunk = writebackChunk
        self.anonymousTemporaries = anonymousTemporaries
        self.fileMode = fileMode
        self.directoryMode = directoryMode
    }
}
