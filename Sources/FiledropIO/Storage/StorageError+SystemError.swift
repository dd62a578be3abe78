import FiledropCore
import FiledropServer
import Glibc

extension StorageError {
    /// The one place errno becomes a storage error the core can turn into an HTTP status.
    init(_ error: SystemError) {
        switch error.errno {
        case ENOSPC, EDQUOT: self = .noSpace
        case EROFS: self = .readOnly
        case EACCES, EPERM: self = .permissionDenied
        case ENAMETOOLONG: self = .nameTooLong
        case ENOENT: self = .notFound
        case EEXIST: self = .exists
        case ENOTDIR: self = .notADirectory
        case EISDIR: self = .isADirectory
        case ENOTEMPTY: self = .notEmpty
        case EXDEV: self = .crossDevice
        // O_NOFOLLOW on a symlink.
        case ELOOP: self = .notAllowed
        default: self = .io(call: error.call, errno: error.errno)
        }
    }
}

/// Runs a system call through `syscall(_:_:)` and reports failure as a `StorageError`.
@inline(__always)
@discardableResult
func storageCall<T: FixedWidthInteger>(_ name: @autoclosure () -> String, _ body: () -> T) throws(StorageError) -> T {
    do {
        return try syscall(name(), body)
    } catch {
        throw StorageError(error)
    }
}

/// Runs code that throws `SystemError` and reports failure as a `StorageError`.
@inline(__always)
func mappingSystemErrors<T>(_ body: () throws(SystemError) -> T) throws(StorageError) -> T {
    do {
        return try body()
    } catch {
        throw StorageError(error)
    }
}
