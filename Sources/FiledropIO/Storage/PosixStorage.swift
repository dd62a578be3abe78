import FiledropCore
import FiledropServer
import Glibc

/// The save directory on a real file system: mechanism only (the core's `StoragePolicy`
/// decides names, limits, free space and durability; this reports facts and carries out
/// writes, syncs and links). The directory is opened once; every path is resolved from that
/// descriptor one component at a time with O_NOFOLLOW, so a symlink anywhere below it is
/// refused (`.notAllowed`) instead of followed out of the save directory (the same rule as
/// dufs `resolve_path`, enforced by the kernel rather than by string checks).
///
/// Shared by every event-loop thread: it holds immutable state (the root descriptor, options)
/// and two caches behind locks of their own, and each call opens its own descriptors.
public final class PosixStorage: Storage {
    /// The save directory as configured, for logs.
    public let rootPath: String
    public let options: StorageOptions
    let root: FileDescriptor
    /// O_TMPFILE is used only when asked for and /proc is there to link the file by name.
    let anonymousTemporaries: Bool
    /// Small files sent recently, checked against the file system when used; those of the
    /// save directory itself are trusted between the changes `rootWatch` counts.
    private let smallFiles = SmallFileCache()
    /// Changes to the save directory itself (not its folders), so a small file there checked
    /// a moment ago is sent without checking again; nil without inotify.
    let rootWatch: DirectoryChangeWatch?
    /// What JSON listings learned of their files' recorded hashes, per file version.
    private let listedSHA256s = ListedSHA256Cache()

    static let directoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

    /// Opens the save directory at `root`, creating it (`options.directoryMode`) if it is missing; its
    /// parent must exist. `root` itself may be reached through symlinks: the administrator
    /// chose it. Nothing below it is.
    public convenience init(root: String, options: StorageOptions = StorageOptions()) throws(SystemError) {
        try self.init(root: root, options: options, watch: { DirectoryChangeWatch(directory: $0) })
    }

    /// `watch` makes the save directory's watch from its descriptor (tests pass one that
    /// sees only the storage's own changes).
    init(root: String, options: StorageOptions, watch: (FileDescriptor) -> DirectoryChangeWatch?) throws(SystemError) {
        do throws(SystemError) {
            try syscall("mkdir") { mkdir(root, options.directoryMode) }
        } catch  where error.errno == EEXIST {}
        self.root = FileDescriptor(owning: try syscall("open") { Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
        self.rootPath = root
        self.options = options
        let procAvailable = (try? syscall("access") { access("/proc/self/fd", F_OK) }) != nil
        self.anonymousTemporaries = options.anonymousTemporaries && procAvailable
        self.rootWatch = watch(self.root)
    }

    /// Whether the directory held open is the one `found` (a stat of `rootPath` now)
    /// describes, not one that took its place since.
    public func holdsDirectory(_ found: stat) -> Bool {
        guard let open = try? root.status() else { return false }
        return open.st_dev == found.st_dev && open.st_ino == found.st_ino
    }

    // MARK: Storage

    public func createUpload(in directory: StoragePath, checksummed: Bool, durable: Bool) throws(StorageError) -> any UploadFile {
        let parent = try openDirectory(directory, creating: true, durable: durable)
        return try PosixUploadFile(
            in: parent, options: options, anonymous: anonymousTemporaries, checksummed: checksummed,
            durable: durable, publishing: rootWatch)
    }

    public func open(_ path: StoragePath) throws(StorageError) -> OpenedFile {
        guard let name = path.name else { throw .isADirectory }
        guard StorageNames.isClientName(name) else { throw .notAllowed }
        // Read before the fstatat below: a change after it makes what it finds untrusted.
        let watched = path.isTopLevel ? rootWatch.flatMap { $0.isWatching ? $0.changes : nil } : nil
        let now = watched == nil ? 0 : Self.monotonicNow()
        if let watched, let file = smallFiles.trusted(name, changes: watched, now: now) { return file }
        let parent = try openDirectory(path.parent, creating: false)
        // fstatat first: it refuses a symlink, a directory or a FIFO without opening it, and
        // it is all a small file sent before costs.
        let found = try checkedStatus(of: name, in: parent)
        if found.isDirectory { throw .isADirectory }
        guard found.isRegularFile else { throw .notAllowed }
        if let cached = smallFiles.contents(for: found), let metadata = found.fileMetadata(name: name) {
            let file = OpenedFile(handle: cached.contents, metadata: metadata, sha256: cached.sha256)
            if let watched { smallFiles.trust(file, named: name, changes: watched, now: now) }
            return file
        }
        // The name may lead elsewhere by now: O_NOFOLLOW refuses a symlink (ELOOP), O_NONBLOCK
        // keeps a FIFO from hanging the event loop, and the fstat decides what was opened.
        let file = FileDescriptor(
            owning: try storageCall("openat") {
                name.withCString { openat(parent.descriptor, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
            })
        let opened = try mappingSystemErrors(file.status)
        if opened.isDirectory { throw .isADirectory }
        guard opened.isRegularFile, let metadata = opened.fileMetadata(name: name) else { throw .notAllowed }
        if opened.st_size <= SmallFileCache.maxFileSize, let contents = FileContents.read(file, size: Int(opened.st_size)) {
            // Read after the fstat: a change since then moves the change time past the one remembered.
            let sha256 = SHA256Attribute.get(from: file)
            smallFiles.remember(contents, sha256: sha256, of: opened)
            return OpenedFile(handle: contents, metadata: metadata, sha256: sha256)
        }
        return OpenedFile(handle: file, metadata: metadata, sha256: SHA256Attribute.get(from: file))
    }

    public func metadata(_ path: StoragePath) throws(StorageError) -> FileMetadata? {
        guard let name = path.name else {
            return try mappingSystemErrors(root.status).fileMetadata(name: "")
        }
        let found: stat
        do throws(StorageError) {
            let parent = try openDirectory(path.parent, creating: false)
            found = try status(of: name, in: parent)
        } catch .notFound, .notADirectory {
            return nil
        }
        guard let metadata = found.fileMetadata(name: name) else { throw .notAllowed }
        return metadata
    }

    public func list(_ directory: StoragePath) throws(StorageError) -> [FileMetadata] {
        let handle = try openDirectory(directory, creating: false)
        let names = try DirectoryEntries.names(in: handle)
        var result: [FileMetadata] = []
        // Room for all at once: growing by doubling would hold the old and the new array together.
        result.reserveCapacity(names.count)
        for name in names where StorageNames.isClientName(name) {
            // Entries can vanish between readdir and fstatat; symlinks and special files
            // are not part of the listing.
            guard let found = try? status(of: name, in: handle), let metadata = found.fileMetadata(name: name) else {
                continue
            }
            result.append(metadata)
        }
        return result
    }

    /// Removes a file, or a directory that is empty (`.notEmpty` otherwise).
    public func remove(_ path: StoragePath) throws(StorageError) {
        guard let name = path.name else { throw .notAllowed }
        defer { rootWatch?.noteChange() }
        let parent = try openDirectory(path.parent, creating: false)
        let found = try status(of: name, in: parent)
        let flags: Int32
        if found.isDirectory {
            flags = AT_REMOVEDIR
        } else if found.isRegularFile {
            flags = 0
        } else {
            throw .notAllowed
        }
        try storageCall("unlinkat") { unlinkat(parent.descriptor, name, flags) }
    }

    public func recordedSHA256(_ path: StoragePath) -> String? {
        guard let name = path.name, StorageNames.isClientName(name),
            let parent = try? openDirectory(path.parent, creating: false)
        else { return nil }
        return SHA256Attribute.get(named: name, in: parent)
    }

    public func recordedSHA256s(_ directory: StoragePath, files: [FileMetadata]) -> [String?] {
        guard let handle = try? openDirectory(directory, creating: false), let found = try? handle.status() else {
            return Array(repeating: nil, count: files.count)
        }
        // One system call per file not listed before in this version (getxattrat), nothing opened.
        return listedSHA256s.hashes(of: files, device: UInt64(found.st_dev)) { name in
            StorageNames.isClientName(name) ? SHA256Attribute.lookUp(named: name, inDirectory: handle) : .none
        }
    }

    public func availableSpace() -> UInt64? {
        spaceReading()?.availableBytes
    }

    public func spaceReading() -> SpaceReading? {
        var result = statvfs()
        guard (try? syscall("fstatvfs") { fstatvfs(root.descriptor, &result) }) != nil else { return nil }
        return SpaceReading(
            availableBytes: UInt64(result.f_bavail) * UInt64(result.f_frsize),
            availableInodes: result.f_files == 0 ? nil : UInt64(result.f_favail),
            readOnly: result.f_flag & UInt(ST_RDONLY) != 0)
    }

    // MARK: Resolution

    /// Opens the directory at `path`, one component at a time from the root descriptor with
    /// O_NOFOLLOW, so a symlink component fails with ELOOP (`.notAllowed`). With `creating`,
    /// missing directories are made (mode 0755, like `mkdir -p`; another thread making the
    /// same one at the same moment is fine), with `durable` synced into their parents.
    func openDirectory(_ path: StoragePath, creating: Bool, durable: Bool = false) throws(StorageError) -> FileDescriptor {
        var current = root
        for name in path.components {
            guard StorageNames.isClientName(name) else { throw .notAllowed }
            current = try openSubdirectory(name, in: current, creating: creating, durable: durable)
        }
        return current
    }

    private func openSubdirectory(
        _ name: String, in parent: FileDescriptor, creating: Bool,
        durable: Bool
    ) throws(StorageError) -> FileDescriptor {
        do throws(StorageError) {
            return try openExistingSubdirectory(name, in: parent)
        } catch .notFound where creating {
            do throws(SystemError) {
                try syscall("mkdirat") { mkdirat(parent.descriptor, name, options.directoryMode) }
                // The new entry must survive a crash along with the upload that needed it.
                if durable {
                    try syscall("fsync") { fsync(parent.descriptor) }
                }
            } catch  where error.errno == EEXIST {
                // Made by another upload meanwhile, or a dangling symlink: the open decides.
            } catch {
                throw StorageError(error)
            }
            return try openExistingSubdirectory(name, in: parent)
        }
    }

    private func openExistingSubdirectory(_ name: String, in parent: FileDescriptor) throws(StorageError) -> FileDescriptor {
        do throws(SystemError) {
            return FileDescriptor(
                owning: try syscall("openat") { name.withCString { openat(parent.descriptor, $0, Self.directoryFlags) } })
        } catch  where error.errno == ENOTDIR {
            // O_DIRECTORY is checked before O_NOFOLLOW: a symlink fails with ENOTDIR too.
            throw try status(of: name, in: parent).isSymbolicLink ? .notAllowed : .notADirectory
        } catch {
            throw StorageError(error)
        }
    }

    /// CLOCK_MONOTONIC_COARSE in nanoseconds: a vDSO read, precise to a few milliseconds,
    /// which is plenty against `SmallFileCache.trustLimit`.
    private static func monotonicNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// fstatat(2) without following a symlink, for client-reachable names only.
    func status(of name: String, in directory: FileDescriptor) throws(StorageError) -> stat {
        guard StorageNames.isClientName(name) else { throw .notAllowed }
        return try checkedStatus(of: name, in: directory)
    }

    /// `status(of:in:)` for a name already found to be a client name.
    private func checkedStatus(of name: String, in directory: FileDescriptor) throws(StorageError) -> stat {
        var result = stat()
        // withCString hands over the String's own bytes (or a stack copy of a small one):
        // passing `name` straight to the C function made a heap-allocated C string per call.
        try storageCall("fstatat") { name.withCString { fstatat(directory.descriptor, $0, &result, AT_SYMLINK_NOFOLLOW) } }
        return result
    }
}
