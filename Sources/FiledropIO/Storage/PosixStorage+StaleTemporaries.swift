import FiledropCore
import Glibc

extension PosixStorage {
    /// Deletes the `.filedrop-tmp-*` files a crash left anywhere below the save directory
    /// (O_TMPFILE uploads need no cleanup: the kernel frees them with their descriptor).
    /// Meant for start-up, before uploads begin: an upload in flight would lose its file.
    /// Returns how many were removed.
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
                    if (try? syscall("unlinkat") { unlinkat(directory.descriptor, name, 0) }) != nil {
                        removed += 1
                    }
                } else if found.isDirectory, !StorageNames.isReserved(name) {
                    pending.append(components + [name])
                }
            }
        }
        return removed
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
