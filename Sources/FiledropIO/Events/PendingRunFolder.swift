import FiledropCore
import FiledropServer
import Glibc

/// The files of one queue of pending runs: `<save>/.filedrop-hooks/` (or `-webhooks`), one
/// small file per run named by `PendingRunNames`, so a listing sorted by name is the queue in
/// order. The folder's name starts with `.filedrop`, so the storage never lists or serves it.
///
/// - Written whole or not at all: each entry goes to `<name>.tmp`, the batch is made durable
///   (one syncfs for all of them), then each is renamed to its name and the folder synced.
/// - Claimed with an OFD lock (`OpenFileLock`), so daemons sharing the save directory never
///   run one entry twice, and the kernel drops the claim of a daemon that dies: its entries
///   are free for the next scan, of this daemon or another (at least once, then).
/// - Removed when done, unlinked before the lock goes (a claimer that waited for the lock
///   finds the file gone: no link left).
///
/// Blocking: called on the hook and webhook threads and the event thread, never on a loop.
struct PendingRunFolder: Sendable {
    static let temporarySuffix = ".tmp"
    /// Where an entry that cannot be read goes: kept for a person to look at, never run.
    static let asideSuffix = ".bad"
    /// A `.tmp` left this long is a crash's leftover (another daemon may be writing a younger one).
    static let leftoverGraceSeconds: Int64 = 60

    let folder: FileDescriptor
    /// fsync and syncfs, as the `fsync` key says for uploads.
    let durable: Bool

    /// An entry this process holds the lock of.
    final class Entry: Sendable {
        let name: String
        let file: FileDescriptor
        let run: PendingRun
        /// False where the file system has no OFD locks: then nothing keeps another daemon off it.
        let locked: Bool

        init(name: String, file: FileDescriptor, run: PendingRun, locked: Bool) {
            self.name = name
            self.file = file
            self.run = run
            self.locked = locked
        }
    }

    enum Claim {
        case claimed(Entry)
        /// Another daemon (or another queue of this one) runs it.
        case heldElsewhere
        /// Done and removed meanwhile.
        case gone
        /// Unreadable: moved aside as `<name>.bad`.
        case movedAside(reason: String)
    }

    /// Opens the folder below `root`, making it (mode 0700: file names are nobody else's
    /// business); `created` says `root` is to be synced before the first entry counts as saved
    /// (left to the caller: this may run on a loop, at a reload, and fsync can block).
    static func open(in root: FileDescriptor, named name: String, durable: Bool) throws(StorageError) -> (
        folder: PendingRunFolder, created: Bool
    ) {
        var created = true
        do throws(SystemError) {
            try syscall("mkdirat") { mkdirat(root.descriptor, name, 0o700) }
        } catch  where error.errno == EEXIST {
            created = false
        } catch {
            throw StorageError(error)
        }
        let descriptor = try storageCall("openat") { openat(root.descriptor, name, PosixStorage.directoryFlags) }
        return (PendingRunFolder(folder: FileDescriptor(owning: descriptor), durable: durable), created)
    }

    /// Writes `entries` in order; returns how many are safely in place (all unless an error
    /// such as a full disk stopped it, which is returned with the count).
    func write(_ entries: [(name: String, bytes: [UInt8])]) -> (written: Int, error: StorageError?) {
        var staged = 0
        var failure: StorageError?
        for entry in entries {
            do throws(StorageError) {
                let file = FileDescriptor(
                    owning: try storageCall("openat") {
                        openat(
                            folder.descriptor, entry.name + Self.temporarySuffix,
                            O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
                    })
                var offset = 0
                while offset < entry.bytes.count {
                    offset += try storageCall("write") {
                        entry.bytes.withUnsafeBytes { Glibc.write(file.descriptor, $0.baseAddress! + offset, $0.count - offset) }
                    }
                }
                staged += 1
            } catch {
                unlink(entry.name + Self.temporarySuffix)
                failure = error
                break
            }
        }
        if durable, staged > 0, (try? storageCall("syncfs") { LinuxFileCalls.syncfs(folder.descriptor) }) == nil {
            // Without syncfs (an old C library), each file on its own.
            for entry in entries.prefix(staged) { syncFile(entry.name + Self.temporarySuffix) }
        }
        var written = 0
        for entry in entries.prefix(staged) {
            do throws(StorageError) {
                try storageCall("renameat") {
                    renameat(folder.descriptor, entry.name + Self.temporarySuffix, folder.descriptor, entry.name)
                }
                written += 1
            } catch {
                failure = failure ?? error
                for rest in entries[written..<staged] { unlink(rest.name + Self.temporarySuffix) }
                break
            }
        }
        if durable, written > 0 { _ = try? syscall("fsync") { fsync(folder.descriptor) } }
        return (written, failure)
    }

    /// The entries' names in queue order, after removing old crash leftovers.
    func names() throws(StorageError) -> [String] {
        var entries: [String] = []
        for name in try DirectoryEntries.names(in: folder) {
            if PendingRunNames.isEntry(name) {
                entries.append(name)
            } else if name.hasSuffix(Self.temporarySuffix) {
                removeIfOld(name)
            }
        }
        return entries.sorted()
    }

    /// Takes the lock of `name` and reads it.
    func claim(_ name: String) -> Claim {
        guard let descriptor = try? syscall("openat", { openat(folder.descriptor, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC) }) else {
            return .gone
        }
        let file = FileDescriptor(owning: descriptor)
        let lock = OpenFileLock.take(descriptor)
        if lock == .heldElsewhere { return .heldElsewhere }
        // Done by its holder between our open and our lock: unlinked first, so no link left.
        guard let status = try? file.status(), status.st_nlink > 0 else { return .gone }
        guard status.isRegularFile else { return moveAside(name, reason: "not a regular file") }
        let bytes: [UInt8]
        do throws(StorageError) {
            bytes = try readAll(file, limit: PendingRun.maxEncodedBytes + 1)
        } catch {
            return moveAside(name, reason: "cannot be read (\(error))")
        }
        do throws(PendingRun.DecodingError) {
            return .claimed(Entry(name: name, file: file, run: try PendingRun(decoding: bytes), locked: lock == .taken))
        } catch {
            return moveAside(name, reason: error.reason)
        }
    }

    /// The run is done: gone from disk, then the lock released.
    func remove(_ entry: Entry) {
        unlink(entry.name)
        entry.file.close()
    }

    /// The run waits again (a webhook's next attempt): the entry is replaced by `run` (its
    /// attempts and time), then the lock released. On a failed write the old entry stays,
    /// which runs again with the previous attempt count: nothing is lost.
    @discardableResult
    func replace(_ entry: Entry, with run: PendingRun) -> StorageError? {
        defer { entry.file.close() }
        let (written, error) = write([(entry.name, run.encoded)])
        return written == 1 ? nil : error
    }

    private func moveAside(_ name: String, reason: String) -> Claim {
        _ = try? syscall("renameat") { renameat(folder.descriptor, name, folder.descriptor, name + Self.asideSuffix) }
        return .movedAside(reason: reason)
    }

    private func readAll(_ file: FileDescriptor, limit: Int) throws(StorageError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < limit {
            let read = try storageCall("read") {
                bytes.withUnsafeMutableBytes { Glibc.read(file.descriptor, $0.baseAddress! + count, $0.count - count) }
            }
            if read == 0 { break }
            count += read
        }
        return Array(bytes.prefix(count))
    }

    private func syncFile(_ name: String) {
        guard let descriptor = try? syscall("openat", { openat(folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) })
        else { return }
        _ = try? syscall("fsync") { fsync(descriptor) }
        _ = Glibc.close(descriptor)
    }

    private func removeIfOld(_ name: String) {
        var status = stat()
        guard (try? syscall("fstatat") { fstatat(folder.descriptor, name, &status, AT_SYMLINK_NOFOLLOW) }) != nil else { return }
        if Clock.wallClockSeconds() - Int64(status.st_mtim.tv_sec) >= Self.leftoverGraceSeconds { unlink(name) }
    }

    private func unlink(_ name: String) {
        _ = try? syscall("unlinkat") { unlinkat(folder.descriptor, name, 0) }
    }
}
