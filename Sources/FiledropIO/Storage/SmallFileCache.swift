import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc
import Synchronization

/// The bytes of recently sent small files and their recorded SHA-256 (`SHA256Attribute`), so
/// that sending one again costs one fstatat(2) instead of openat, fstat, pread, fgetxattr and
/// close (nginx's `open_file_cache` does the same for descriptors). A use is checked against a
/// fresh fstatat of the name: an entry counts only while the name still leads to the same
/// inode with the same size, modification and change times. Uploads publish new inodes (link
/// or rename), and any write to a file moves its change time, so a checked copy is never
/// stale - the facts the strong ETag rests on too. Setting or removing an extended attribute
/// moves the change time as well (xattr(7), inode(7)), so the hash remembered with the bytes
/// is as fresh as they are.
/// A name of the save directory itself, once checked, is trusted without that fstatat while
/// its `DirectoryChangeWatch` reports no change, for at most `trustLimit`
/// (`trusted(_:changes:now:)`).
/// One more rule makes "moves" hold on kernels whose file times tick only every few
/// milliseconds: a file changed in the last two seconds is not remembered, so a later change
/// always gets a later time than the one remembered.
///
/// Bounded: at most `capacity` entries of at most `maxFileSize` bytes (2 MiB) per event loop,
/// the oldest entry going first. No descriptor is kept, so a deleted file's space is freed at
/// once. Each event loop has a part of its own (`EventLoop.currentIndex`), behind a lock held
/// only for a dictionary lookup: the loops never wait for each other on a download, nor
/// pass one lock's cache line back and forth. Other threads share the first loop's part.
final class SmallFileCache: Sendable {
    /// Files larger than this are opened and sent with sendfile every time.
    static let maxFileSize = 16 * 1024

    private struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ found: stat) {
            device = UInt64(found.st_dev)
            inode = UInt64(found.st_ino)
        }
    }

    private struct Entry {
        var size: Int64
        var modified: timespec
        var changed: timespec
        var contents: FileContents
        var sha256: String?
    }

    /// What a hit gives: the file's bytes and its recorded hash, both of the version checked.
    struct Hit {
        let contents: FileContents
        let sha256: String?
    }

    /// A name of a watched directory whose file was found here by a fresh fstatat.
    private final class TrustedName: Sendable {
        let name: String
        let digest: UInt64
        let file: OpenedFile
        /// The watch's count of changes read before that fstatat.
        let changes: UInt64
        let checkedAt: Int64

        init(name: String, digest: UInt64, file: OpenedFile, changes: UInt64, checkedAt: Int64) {
            self.name = name
            self.digest = digest
            self.file = file
            self.changes = changes
            self.checkedAt = checkedAt
        }
    }

    private struct State {
        var entries: [Identity: Entry] = [:]
        /// Insertion order, for eviction.
        var order: [Identity] = []
        var nextEviction = 0
        /// `capacity` slots, a name's by its digest: a name takes the slot from another
        /// (which then costs its fstatat again). A Dictionary hashed each name as a String,
        /// which cost more than the rest of the lookup together.
        var trusted: [TrustedName?] = []
    }

    /// One loop's entries. Padded so that two parts' locks never share a cache line.
    private final class Part: Sendable {
        let state = Mutex(State())
        private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// Loops beyond this many share parts (correct, only contended again).
    static let partCount = 8

    private let capacity: Int
    private let parts = (0..<SmallFileCache.partCount).map { _ in Part() }

    init(capacity: Int = 128) {
        self.capacity = capacity
    }

    /// The part of the loop running on this thread.
    private var part: Part {
        parts[(EventLoop.currentIndex ?? 0) % Self.partCount]
    }

    /// The cached bytes and hash of the file `found` describes, if they are still its own.
    func contents(for found: stat) -> Hit? {
        let identity = Identity(found)
        return part.state.withLock { state in
            guard let entry = state.entries[identity] else { return nil }
            guard entry.size == Int64(found.st_size), Self.same(entry.modified, found.st_mtim),
                Self.same(entry.changed, found.st_ctim)
            else {
                return nil
            }
            return Hit(contents: entry.contents, sha256: entry.sha256)
        }
    }

    /// Remembers `contents` and `sha256` as the bytes and recorded hash of the file `found` (an
    /// fstat of the descriptor they were read from) describes, unless it changed in the last
    /// two seconds.
    func remember(_ contents: FileContents, sha256: String?, of found: stat) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        guard now.tv_sec - found.st_ctim.tv_sec >= 2 else { return }
        let identity = Identity(found)
        let entry = Entry(
            size: Int64(found.st_size), modified: found.st_mtim, changed: found.st_ctim, contents: contents,
            sha256: sha256)
        part.state.withLock { state in
            if state.entries.updateValue(entry, forKey: identity) != nil { return }
            if state.order.count < capacity {
                state.order.append(identity)
                return
            }
            // Full: the slot of the oldest entry (a ring over `order`) takes the new one.
            state.entries[state.order[state.nextEviction]] = nil
            state.order[state.nextEviction] = identity
            state.nextEviction = (state.nextEviction + 1) % capacity
        }
    }

    /// How long a name's check is trusted without a change reported: the bound for changes
    /// inotify does not see (`DirectoryChangeWatch`). At this age a hot file costs one
    /// fstatat per second and loop instead of one per request.
    static let trustLimit: Int64 = 1_000_000_000

    /// The file `name` (in a directory `DirectoryChangeWatch` watches) led to when it was
    /// last checked, if that was less than `trustLimit` ago and the watch's count of changes
    /// is still `changes`: sent without a system call.
    func trusted(_ name: String, changes: UInt64, now: Int64) -> OpenedFile? {
        let digest = Self.digest(of: name)
        let entry = part.state.withLock { state in
            state.trusted.isEmpty ? nil : state.trusted[Int(digest % UInt64(state.trusted.count))]
        }
        guard let entry, entry.digest == digest, entry.changes == changes, now - entry.checkedAt < Self.trustLimit,
            entry.name.hasSameBytes(as: name)
        else {
            return nil
        }
        return entry.file
    }

    /// Remembers that `name` led to `file` (found here after a fresh fstatat) when the
    /// watch's count of changes, read before that fstatat, was `changes`.
    func trust(_ file: OpenedFile, named name: String, changes: UInt64, now: Int64) {
        let digest = Self.digest(of: name)
        let entry = TrustedName(name: name, digest: digest, file: file, changes: changes, checkedAt: now)
        part.state.withLock { state in
            if state.trusted.isEmpty { state.trusted = Array(repeating: nil, count: capacity) }
            state.trusted[Int(digest % UInt64(state.trusted.count))] = entry
        }
    }

    /// FNV-1a of the name's bytes: a slot for it, and a first test before its bytes. On the
    /// contiguous bytes (`withUTF8Bytes`): stepping through a UTF8View costs several times more.
    private static func digest(of name: String) -> UInt64 {
        name.withUTF8Bytes(FNV1a.hash)
    }

    private static func same(_ a: timespec, _ b: timespec) -> Bool {
        a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec
    }
}

/// A whole small file held in memory, standing in for an open descriptor: the writer sends
/// its bytes directly and readers copy from them.
final class FileContents: OpenFileHandle, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// There is no descriptor: every reader of a region checks `bytesInMemory` first.
    var descriptor: Int32 { -1 }

    var bytesInMemory: [UInt8]? { bytes }

    /// The bytes of `region`, a region of this file.
    func bytes(of region: FileRegion) -> ArraySlice<UInt8> {
        bytes[Int(region.offset)..<Int(region.offset + region.length)]
    }

    /// Reads all of a regular file of `size` bytes; nil when it is not that size any more.
    static func read(_ file: FileDescriptor, size: Int) -> FileContents? {
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var filled = 0
            while filled < size {
                let result = try? syscall("pread") {
                    pread(file.descriptor, buffer.baseAddress! + filled, size - filled, off_t(filled))
                }
                guard let result, result > 0 else { break }
                filled += result
            }
            complete = filled == size
            count = filled
        }
        return complete ? FileContents(bytes) : nil
    }
}
