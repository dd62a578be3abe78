import FiledropCore
import FiledropServer
import Glibc

/// Renames `sourceName` in `sourceDirectory` to `destinationName` in `destinationDirectory`
/// without ever replacing an existing destination (EEXIST: `.exists`).
///
/// renameat2(RENAME_NOREPLACE) where the file system has it. Where it does not (NFS, FUSE
/// file systems such as bindfs answer EINVAL; a C library without renameat2 sets ENOSYS):
/// - a file is linked under the new name and unlinked under the old (linkat never replaces
///   and is atomic on NFS). A crash between the two leaves a second link, never a lost file.
/// - a directory cannot be linked, so the destination is first reserved with mkdirat (which
///   fails on an existing name) and the directory renamed onto that empty reservation.
///   renameat replaces only an empty directory, so a name someone else made in the meantime
///   is refused (EEXIST/ENOTEMPTY), and the reservation goes again.
/// With the fallback, EINVAL from renameat is rename(2)'s "a directory into itself".
func renameWithoutReplacing(
    _ sourceName: String, in sourceDirectory: Int32, to destinationName: String, in destinationDirectory: Int32,
    isDirectory: Bool
) throws(StorageError) {
    do throws(SystemError) {
        try syscall("renameat2") {
            LinuxFileCalls.renameat2(
                sourceDirectory, sourceName, destinationDirectory, destinationName,
                LinuxFileCalls.RENAME_NOREPLACE)
        }
        return
    } catch  where error.errno == EINVAL || error.errno == ENOSYS {
        // No RENAME_NOREPLACE here, or a directory moved into itself: the fallback tells which.
    } catch {
        throw StorageError(error)
    }
    if isDirectory {
        try renameDirectoryOntoReservation(sourceName, in: sourceDirectory, to: destinationName, in: destinationDirectory)
    } else {
        try renameByLinking(sourceName, in: sourceDirectory, to: destinationName, in: destinationDirectory)
    }
}

func renameByLinking(
    _ sourceName: String, in sourceDirectory: Int32, to destinationName: String, in destinationDirectory: Int32
) throws(StorageError) {
    try storageCall("linkat") { linkat(sourceDirectory, sourceName, destinationDirectory, destinationName, 0) }
    _ = try? syscall("unlinkat") { unlinkat(sourceDirectory, sourceName, 0) }
}

func renameDirectoryOntoReservation(
    _ sourceName: String, in sourceDirectory: Int32, to destinationName: String, in destinationDirectory: Int32
) throws(StorageError) {
    try storageCall("mkdirat") { mkdirat(destinationDirectory, destinationName, 0o700) }
    do throws(SystemError) {
        try syscall("renameat") { renameat(sourceDirectory, sourceName, destinationDirectory, destinationName) }
    } catch {
        _ = try? syscall("unlinkat") { unlinkat(destinationDirectory, destinationName, AT_REMOVEDIR) }
        switch error.errno {
        case EINVAL: throw .movedIntoItself
        case ENOTEMPTY: throw .exists
        default: throw StorageError(error)
        }
    }
}
