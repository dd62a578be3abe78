import FiledropCore
import Glibc

/// MOVE and MKCOL below the save directory: both parents are opened one component at a time
/// with O_NOFOLLOW like every other path, so neither end can leave the save directory.
extension PosixStorage {
    /// Never replaces: an existing destination is refused in the same step as the rename
    /// (`renameWithoutReplacing`), so no check-then-rename race can replace a file. Durable:
    /// both directories are synced, so the new name survives a crash and the old one stays gone.
    public func move(_ source: StoragePath, to destination: StoragePath, durable: Bool) throws(StorageError) {
        guard let sourceName = source.name, let destinationName = destination.name else { throw .notAllowed }
        guard StorageNames.isClientName(sourceName), StorageNames.isClientName(destinationName) else { throw .notAllowed }
        defer { rootWatch?.noteChange() }
        let sourceParent = try openDirectory(source.parent, creating: false)
        let found = try status(of: sourceName, in: sourceParent)
        // A symlink or a device file is not part of the drop, whatever name it has.
        guard found.isDirectory || found.isRegularFile else { throw .notAllowed }
        let destinationParent = try openDirectory(destination.parent, creating: false)
        try renameWithoutReplacing(
            sourceName, in: sourceParent.descriptor, to: destinationName,
            in: destinationParent.descriptor, isDirectory: found.isDirectory)
        if durable {
            try storageCall("fsync") { fsync(destinationParent.descriptor) }
            try storageCall("fsync") { fsync(sourceParent.descriptor) }
        }
    }

    public func makeDirectory(_ path: StoragePath, durable: Bool) throws(StorageError) {
        guard let name = path.name else { throw .exists }
        guard StorageNames.isClientName(name) else { throw .notAllowed }
        let parent = try openDirectory(path.parent, creating: false)
        try storageCall("mkdirat") { mkdirat(parent.descriptor, name, options.directoryMode) }
        if durable {
            try storageCall("fsync") { fsync(parent.descriptor) }
        }
    }
}
