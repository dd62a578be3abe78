import CLinux
import FiledropServer
import Glibc
import Synchronization

/// Says whether anything in one directory may have changed since a given moment, so that a
/// small file of that directory already checked can be sent again without asking the file
/// system (`SmallFileCache`'s trusted names): the fstatat(2) that checked it was a third of
/// the system calls of a keep-alive GET.
///
/// A counter moves on every change. Changes made by filedrop itself move it at once
/// (`noteChange`, called after each publish, removal and move, before the response that
/// reports it). Changes made by others move it when inotify reports them: a thread of its own
/// (`dirwatch`) waits on the directory's events and counts each batch. That leaves two gaps,
/// both closed by a time limit on trust (`SmallFileCache.trustLimit`, as lighttpd's stat cache
/// trusts every stat for a second):
/// - between another process's change and this thread having read inotify's report of it
///   (it waits on it, and runs at once where a core is free);
/// - changes inotify does not report: writes through a memory mapping or through a hard link
///   in another directory, and changes made by another machine on a network file system.
/// Only local file systems are watched (`localFileSystems`): on NFS, CIFS, CephFS or FUSE,
/// inotify reports the changes made on this machine only, not those of another daemon
/// sharing the folder. There, as where inotify is not available (instances used up), there
/// is no watch and every request checks the file system.
final class DirectoryChangeWatch: Sendable {
    /// What the watching thread shares with the watch; it outlives the watch until the
    /// thread has seen `stop` and closed the descriptors.
    private final class Shared: Sendable {
        let changes = Atomic<UInt64>(0)
        /// False once the watch is gone (the directory was deleted or its file system
        /// unmounted): nothing can be trusted any more.
        let watching = Atomic<Bool>(true)
        let inotify: Int32
        let stop: Int32

        init(inotify: Int32, stop: Int32) {
            self.inotify = inotify
            self.stop = stop
        }
    }

    /// Everything that changes a name's file or what the name leads to. IN_CREATE is left
    /// out: a new name changes no file already checked.
    static let events = UInt32(
        IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE
            | IN_DELETE_SELF | IN_MOVE_SELF)

    /// statfs(2) magic numbers of the file systems whose every change goes through this
    /// kernel: ext2/3/4, XFS, Btrfs, tmpfs, F2FS, ZFS, and overlayfs (a container's own
    /// files; a change made to its lower layer from outside is left to the time limit).
    static let localFileSystems: Set<Int> = [
        0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0xF2F5_2010, 0x2FC1_2FC1,
        0x794C_7630,
    ]

    private let shared: Shared

    /// Watches `directory` (an open descriptor: the watch follows the same inode whatever
    /// path leads to it); nil when inotify cannot.
    init?(directory: FileDescriptor) {
        var fileSystem = statfs()
        guard fstatfs(directory.descriptor, &fileSystem) == 0, Self.localFileSystems.contains(Int(fileSystem.f_type)) else {
            return nil
        }
        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { return nil }
        let stop = eventfd(0, Int32(EFD_CLOEXEC))
        guard stop >= 0, inotify_add_watch(inotify, "/proc/self/fd/\(directory.descriptor)", Self.events) >= 0 else {
            close(inotify)
            if stop >= 0 { close(stop) }
            return nil
        }
        let shared = Shared(inotify: inotify, stop: stop)
        self.shared = shared
        pthread_detach(startNamedThread("dirwatch") { Self.watch(shared) })
    }

    /// A watch that counts only the changes it is told of (`noteChange`): for tests of
    /// the storage's own notes, which inotify would report too, a moment later.
    init(seeingOnlyNotedChanges: Void) {
        shared = Shared(inotify: -1, stop: -1)
    }

    deinit {
        guard shared.stop >= 0 else { return }
        var one: UInt64 = 1
        _ = write(shared.stop, &one, MemoryLayout<UInt64>.size)
    }

    /// The count of changes so far. Read it before checking a file: a change after the
    /// read moves it past the value the check is remembered with.
    var changes: UInt64 { shared.changes.load(ordering: .acquiring) }

    /// Whether the directory is still watched.
    var isWatching: Bool { shared.watching.load(ordering: .acquiring) }

    /// For changes filedrop makes itself: counted before the request that made them is
    /// answered, so its client never gets the old file back.
    func noteChange() {
        shared.changes.add(1, ordering: .releasing)
    }

    /// The watching thread: counts one change per batch of events until the watch stops.
    /// Only the watch's end (`stop`) ends it, so the descriptors are never closed while
    /// `deinit` may still write to `stop`.
    private static func watch(_ shared: Shared) {
        defer {
            close(shared.inotify)
            close(shared.stop)
        }
        var polled = [
            pollfd(fd: shared.inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: shared.stop, events: Int16(POLLIN), revents: 0),
        ]
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 8)
        defer { buffer.deallocate() }
        while shared.watching.load(ordering: .relaxed) {
            guard poll(&polled, 2, -1) >= 0 || errno == EINTR else { break }
            if polled[1].revents != 0 { return }
            guard polled[0].revents != 0 else { continue }
            var removed = false
            while true {
                let count = read(shared.inotify, buffer.baseAddress, buffer.count)
                if count <= 0 { break }
                removed = removed || Self.watchRemoved(in: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
            // An overflow (IN_Q_OVERFLOW) lands here too: some change, unknown which.
            shared.changes.add(1, ordering: .releasing)
            if removed { shared.watching.store(false, ordering: .releasing) }
        }
        shared.watching.store(false, ordering: .releasing)
        var value: UInt64 = 0
        while read(shared.stop, &value, MemoryLayout<UInt64>.size) < 0 && errno == EINTR {}
    }

    /// Whether the events in `bytes` include IN_IGNORED: the kernel dropped the watch.
    private static func watchRemoved(in bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.count {
            let mask = bytes.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int32>.size, as: UInt32.self)
            if mask & UInt32(IN_IGNORED) != 0 { return true }
            let nameLength = bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)
            offset += header + Int(nameLength)
        }
        return false
    }
}
