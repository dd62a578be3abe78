import CLinux
import FiledropCore
import FiledropServer
import Glibc
import Synchronization

/// The extended attribute `user.filedrop.sha256` that keeps an upload's SHA-256 (64
/// lowercase hex digits) with the file, set on the temporary before it is published, so the
/// file never appears without it. A file system without user xattrs (tmpfs before 6.6,
/// some FUSE and network mounts) keeps nothing, and the file has no recorded hash.
enum SHA256Attribute {
    static let name = "user.filedrop.sha256"

    /// fsetxattr(2); failures (ENOTSUP, EPERM, ENOSPC) leave the file without it.
    static func set(_ hex: String, on file: FileDescriptor) {
        var value = Array(hex.utf8)
        _ = fsetxattr(file.descriptor, name, &value, value.count, 0)
    }

    /// fgetxattr(2): the recorded hash, nil when there is none or it is not 64 hex digits.
    static func get(from file: FileDescriptor) -> String? {
        var value = [UInt8](repeating: 0, count: 64)
        let count = fgetxattr(file.descriptor, name, &value, value.count)
        return decoded(value, count: count)
    }

    private static func decoded(_ value: [UInt8], count: Int) -> String? {
        guard count == 64 else { return nil }
        let hex = String(decoding: value, as: UTF8.self)
        return SHA256Text.bytes(hex: hex) == nil ? nil : hex.lowercased()
    }

    /// What the file system says about a file's recorded hash.
    enum Lookup: Equatable {
        case recorded(String)
        /// No attribute, one that is not 64 hex digits, or a file system without user xattrs.
        case none
        /// The question went unanswered (the file is gone, EIO, EACCES): ask again next time.
        case failed
    }

    /// The recorded hash of `name` in `directory` without opening it, not following a symlink
    /// at `name` (a JSON listing asks for every file): getxattrat(2) where the kernel has it
    /// (6.13), one lookup from the directory, else lgetxattr(2) through the directory's
    /// /proc/self/fd link, which walks /proc first and costs about twice as much.
    static func lookUp(named name: String, inDirectory directory: FileDescriptor) -> Lookup {
        var value = [UInt8](repeating: 0, count: 64)
        if hasGetxattrat.load(ordering: .relaxed) {
            let count = filedrop_getxattrat(
                directory.descriptor, name, UInt32(AT_SYMLINK_NOFOLLOW), Self.name, &value, value.count)
            // ENOSYS: an older kernel. EPERM: a seccomp filter that predates the call (a
            // unit's SystemCallFilter with SystemCallErrorNumber=EPERM) or, rarely, a symlink's
            // user attribute; either way lgetxattr answers the same question.
            if count >= 0 || (errno != ENOSYS && errno != EPERM) { return lookup(value, count: count, errno: errno) }
            hasGetxattrat.store(false, ordering: .relaxed)
        }
        let count = lgetxattr("/proc/self/fd/\(directory.descriptor)/\(name)", Self.name, &value, value.count)
        return lookup(value, count: count, errno: errno)
    }

    private static func lookup(_ value: [UInt8], count: Int, errno: Int32) -> Lookup {
        // ERANGE: a value longer than 64 bytes, which is no hash either.
        guard count >= 0 || [ENODATA, ENOTSUP, ERANGE].contains(errno) else { return .failed }
        return decoded(value, count: count).map { .recorded($0) } ?? .none
    }

    /// False once getxattrat was answered ENOSYS or EPERM.
    private static let hasGetxattrat = Atomic<Bool>(true)

    /// The recorded hash of `name` in `directory`, opened without following a symlink and
    /// without blocking on a FIFO; nil for anything but a regular file.
    static func get(named name: String, in directory: FileDescriptor) -> String? {
        guard
            let file = try? syscall(
                "openat", { openat(directory.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) })
        else { return nil }
        let handle = FileDescriptor(owning: file)
        guard let status = try? handle.status(), status.isRegularFile else { return nil }
        return get(from: handle)
    }
}
