/// What the save directory's file system says about room for new files (`statvfs`): facts
/// only; whether an upload may start is `StoragePolicy.admission`'s decision.
public struct SpaceReading: Sendable, Equatable {
    /// Bytes an unprivileged writer may still use (`f_bavail × f_frsize`).
    public var availableBytes: UInt64
    /// Inodes an unprivileged writer may still use (`f_favail`); nil where the file system
    /// has no fixed inode table and reports none at all (`f_files` 0, as btrfs does).
    public var availableInodes: UInt64?
    /// Mounted read-only (`ST_RDONLY`): no write can succeed, whatever the permission bits.
    public var readOnly: Bool

    public init(availableBytes: UInt64, availableInodes: UInt64? = nil, readOnly: Bool = false) {
        self.availableBytes = availableBytes
        self.availableInodes = availableInodes
        self.readOnly = readOnly
    }
}
