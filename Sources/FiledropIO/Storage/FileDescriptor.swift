import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc
import Synchronization

/// Owns one open file descriptor and closes it exactly once: on `close()` or when the last
/// reference goes. Shared between threads as the handle behind a `FileRegion`, so the number
/// lives in an atomic and closing twice (or racing a close with deinit) is harmless.
public final class FileDescriptor: OpenFileHandle, Sendable {
    private let storage: Atomic<Int32>

    /// Takes ownership of `descriptor`.
    public init(owning descriptor: Int32) {
        precondition(descriptor >= 0, "FileDescriptor needs an open descriptor, got \(descriptor)")
        storage = Atomic(descriptor)
    }

    deinit {
        close()
    }

    /// The descriptor number; -1 once closed.
    public var descriptor: Int32 { storage.load(ordering: .acquiring) }

    public var isOpen: Bool { descriptor >= 0 }

    /// Closes the descriptor; later calls do nothing. Errors from close(2) are ignored: the
    /// descriptor is gone either way on Linux, and retrying could close someone else's.
    public func close() {
        let descriptor = storage.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
        }
    }

    /// fstat(2) of the open descriptor.
    public func status() throws(SystemError) -> stat {
        var result = stat()
        try syscall("fstat") { fstat(descriptor, &result) }
        return result
    }
}

extension stat {
    var isRegularFile: Bool { st_mode & S_IFMT == S_IFREG }
    var isDirectory: Bool { st_mode & S_IFMT == S_IFDIR }
    var isSymbolicLink: Bool { st_mode & S_IFMT == S_IFLNK }

    /// st_mtim in nanoseconds since 1970.
    var modifiedNanoseconds: Int64 { Int64(st_mtim.tv_sec) * 1_000_000_000 + Int64(st_mtim.tv_nsec) }
    /// st_ctim in nanoseconds since 1970.
    var changedNanoseconds: Int64 { Int64(st_ctim.tv_sec) * 1_000_000_000 + Int64(st_ctim.tv_nsec) }

    /// The core's view of this entry, nil for anything but a regular file or a directory.
    func fileMetadata(name: String) -> FileMetadata? {
        let kind: FileMetadata.Kind
        if isRegularFile {
            kind = .file
        } else if isDirectory {
            kind = .directory
        } else {
            return nil
        }
        return FileMetadata(
            name: name, kind: kind, size: UInt64(st_size), modified: modifiedNanoseconds, inode: UInt64(st_ino),
            changed: changedNanoseconds)
    }
}
