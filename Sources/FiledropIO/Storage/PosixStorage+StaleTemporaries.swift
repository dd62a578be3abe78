import FiledropCore
import FiledropServer
import Glibc

extension PosixStorage {
    /// Deletes the `.filedrop-tmp-*` files a crash left anywhere below the save directory
    /// (O_TMPFILE uploads need no cleanup: the kernel frees them with their descriptor).
    /// Meant for start-up, before this daemon's uploads begin; a temporary another daemon on
    /// the same directory is writing holds its `OpenFileLock` and is kept. Returns how many
    /// were removed.
    ///
    /// The walk keeps a list of directories still to visit, not a recursion or a stack of
    /// open descriptors, so a deep tree costs neither stack nor file descriptors. Symlinks
    /// are never entered; directories that cannot be read are skipped.
    @discardableResult
    public func removeStaleTemporaries() -> Int {
        var removed = 0
        var pending: [[String]] = [[]]
        while let components = pending.popLast() {
            guard let directory = try? openDirectory(components), let names = try? DirectoryEntries.names(in: directory) else {
                continue
            }
            for name in names {
                var found = stat()
                guard (try? syscall("fstatat") { fstatat(directory.descriptor, name, &found, AT_SYMLINK_NOFOLLOW) }) != nil else {
                    continue
                }
                if StorageNames.isTemporary(name), found.isRegularFile {
                    if removeUnlessInFlight(name, in: directory) { removed += 1 }
                } else if found.isDirectory, !StorageNames.isReserved(name) {
                    pending.append(components + [name])
                }
            }
        }
        return removed
    }

    /// Unlinks the temporary unless its upload's lock is held: the lock is taken on a
    /// descriptor of our own and held across the unlink, so no upload can start on it meanwhile.
    private func removeUnlessInFlight(_ name: String, in directory: FileDescriptor) -> Bool {
        guard
            let descriptor = try? syscall(
                "openat",
                {
                    openat(directory.descriptor, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
                })
        else { return false }
        let file = FileDescriptor(owning: descriptor)
        defer { file.close() }
        if OpenFileLock.take(file.descriptor) == .heldElsewhere { return false }
        return (try? syscall("unlinkat") { unlinkat(directory.descriptor, name, 0) }) != nil
    }

    /// `openDirectory(_:creating:)` for raw components read from disk, which may be any
    /// name the file system holds (the walk does not go through `StoragePath`).
    private func openDirectory(_ components: [String]) throws(SystemError) -> FileDescriptor {
        var current = root
        for name in components {
            current = FileDescriptor(owning: try syscall("openat") { openat(current.descriptor, name, Self.directoryFlags) })
        }
        return current
    }
}
