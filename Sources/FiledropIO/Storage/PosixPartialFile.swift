import FiledropCore
import FiledropServer
import Glibc

/// A partial file open (O_APPEND) for one PATCH.
///
/// Its lock is an open file description lock (fcntl(2) F_OFD_SETLK) on the whole file: it
/// belongs to this open file, not to the process, so two requests of one daemon exclude each
/// other as two daemons do; the kernel drops it when the last descriptor closes or the
/// process dies (nothing stale to clean up after a SIGKILL, unlike a lock file); and over
/// NFSv4 the client passes it to the server as a byte-range lock.
final class PosixPartialFile: PartialUploadFile {
    private let file: FileDescriptor
    private let folder: FileDescriptor
    private let name: String
    private let options: StorageOptions
    private let durable: Bool
    /// Made when the first byte is written (the file's size is known only under the lock).
    private var writeback: WritebackPacer?
    /// The file's size as this writer knows it, once it has written.
    private var end: UInt64 = 0

    init(_ file: FileDescriptor, folder: FileDescriptor, name: String, options: StorageOptions, durable: Bool) {
        self.file = file
        self.folder = folder
        self.name = name
        self.options = options
        self.durable = durable
    }

    func tryLock() throws(StorageError) -> Bool {
        switch OpenFileLock.take(file.descriptor) {
        case .taken: break
        case .heldElsewhere: return false
        case .unsupported(let errno): throw StorageError(SystemError(call: "fcntl(F_OFD_SETLK)", errno: errno))
        }
        // Opened before another daemon removed or published the upload, locked after it let
        // go: the name no longer leads to this file, and nothing may be written to it.
        var named = stat()
        let opened = try mappingSystemErrors { () throws(SystemError) in try file.status() }
        guard (try? syscall("fstatat") { fstatat(folder.descriptor, name, &named, AT_SYMLINK_NOFOLLOW) }) != nil,
            named.st_ino == opened.st_ino, named.st_dev == opened.st_dev
        else {
            unlock()
            throw .notFound
        }
        return true
    }

    func unlock() {
        OpenFileLock.release(file.descriptor)
    }

    var size: UInt64 {
        (try? file.status()).map { UInt64($0.st_size) } ?? 0
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        if writeback == nil {
            end = size
            writeback = WritebackPacer(options: options, durable: durable, startingAt: end)
        }
        try writeAll(bytes, to: file)
        end += UInt64(bytes.count)
    }

    var writebackDue: Bool {
        writeback?.isDue(written: end) ?? false
    }

    func paceWriteback() throws(StorageError) {
        try writeback?.pace(file.descriptor, written: end)
    }

    /// A cut moves the end back; write-back starts again from the new end.
    func truncate(to size: UInt64) throws(StorageError) {
        try storageCall("ftruncate") { ftruncate(file.descriptor, off_t(size)) }
        writeback = nil
    }

    func synchronize() throws(StorageError) {
        try storageCall("fsync") { fsync(file.descriptor) }
    }
}
