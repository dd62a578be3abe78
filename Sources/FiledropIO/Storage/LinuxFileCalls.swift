import Glibc

/// The Linux file-system calls and flags that Swift's Glibc module leaves out because it is
/// imported without `_GNU_SOURCE`. The flag values are kernel ABI (`include/uapi/linux/fcntl.h`,
/// `include/uapi/linux/fs.h`) and never change; the two functions have real glibc symbols
/// (not variadic), so they are looked up once with `dlsym` and called through a C pointer.
enum LinuxFileCalls {
    /// open(2): an unnamed file in the given directory, linkable later (`__O_TMPFILE | O_DIRECTORY`).
    static let O_TMPFILE: Int32 = 0o20000000 | Glibc.O_DIRECTORY
    /// renameat2(2): fail with EEXIST instead of replacing the target.
    static let RENAME_NOREPLACE: UInt32 = 1
    /// sync_file_range(2): wait for write-out already in flight on the range.
    static let SYNC_FILE_RANGE_WAIT_BEFORE: UInt32 = 1
    /// sync_file_range(2): start write-out of the range's dirty pages.
    static let SYNC_FILE_RANGE_WRITE: UInt32 = 2
    /// sync_file_range(2): wait for the write-out just started.
    static let SYNC_FILE_RANGE_WAIT_AFTER: UInt32 = 4
    /// fcntl(2): set or clear an open file description lock without waiting (EAGAIN when held).
    static let F_OFD_SETLK: Int32 = 37

    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    private typealias SyncFS = @convention(c) (Int32) -> Int32

    private static let renameat2Function: RenameAt2? = symbol("renameat2", as: RenameAt2.self)
    private static let syncFileRangeFunction: SyncFileRange? = symbol("sync_file_range", as: SyncFileRange.self)
    private static let syncfsFunction: SyncFS? = symbol("syncfs", as: SyncFS.self)

    private static func symbol<F>(_ name: String, as type: F.Type) -> F? {
        guard let pointer = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }

    /// renameat2(2); sets ENOSYS when the C library is too old to have it (glibc < 2.28).
    static func renameat2(_ oldDirectory: Int32, _ oldName: String, _ newDirectory: Int32, _ newName: String, _ flags: UInt32)
        -> Int32
    {
        guard let function = renameat2Function else {
            Glibc.errno = ENOSYS
            return -1
        }
        return function(oldDirectory, oldName, newDirectory, newName, flags)
    }

    /// sync_file_range(2); sets ENOSYS when the C library does not have it.
    static func syncFileRange(_ descriptor: Int32, offset: Int64, length: Int64, flags: UInt32) -> Int32 {
        guard let function = syncFileRangeFunction else {
            Glibc.errno = ENOSYS
            return -1
        }
        return function(descriptor, offset, length, flags)
    }

    /// syncfs(2): everything written on the file system `descriptor` is on becomes durable in
    /// one call (one journal commit for many small files instead of one each); sets ENOSYS
    /// when the C library does not have it.
    static func syncfs(_ descriptor: Int32) -> Int32 {
        guard let function = syncfsFunction else {
            Glibc.errno = ENOSYS
            return -1
        }
        return function(descriptor)
    }
}
