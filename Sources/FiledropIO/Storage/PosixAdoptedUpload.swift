import FiledropCore
import FiledropServer
import Glibc

/// A complete partial file handed to the storage policy: `publish` moves it from the tus
/// folder into its target directory with the same no-replace rename as every other upload.
final class PosixAdoptedUpload: UploadFile {
    private let file: FileDescriptor
    private let folder: FileDescriptor
    private let partName: String
    private let target: FileDescriptor
    private var done = false
    /// The completing PATCH fsynced the file under the lock still held: a second fsync at
    /// publish would find nothing to write and still cost a journal round trip (~5 ms).
    private let bytesOnDisk: Bool
    /// Told of the publish, so a file checked before under the same name is checked again.
    private let watch: DirectoryChangeWatch?
    let bytesWritten: UInt64

    init(
        file: FileDescriptor, folder: FileDescriptor, partName: String, target: FileDescriptor,
        bytesOnDisk: Bool, publishing watch: DirectoryChangeWatch?
    ) throws(StorageError) {
        self.file = file
        self.watch = watch
        self.bytesOnDisk = bytesOnDisk
        self.folder = folder
        self.partName = partName
        self.target = target
        self.bytesWritten = UInt64(try mappingSystemErrors { () throws(SystemError) in try file.status() }.st_size)
    }

    /// Not computed: the bytes arrived over many requests, maybe before a restart, and the
    /// tus response carries no upload report.
    /// tus verifies with its own per-PATCH checksums; no CRC-32 is kept.
    var crc32: UInt32? { nil }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        throw .notAllowed
    }

    /// xattrs follow the inode: set on the partial file, they stay with it through the rename.
    func recordSHA256(_ hex: String) {
        SHA256Attribute.set(hex, on: file)
    }

    /// Its bytes were written (and synchronized) by the PATCHes that brought them.
    var writebackDue: Bool { false }

    func paceWriteback() throws(StorageError) {}

    func publish(as name: String, replacing: Bool, durable: Bool) throws(StorageError) {
        precondition(!done, "publish after publish or discard")
        guard StorageNames.isClientName(name) else { throw .notAllowed }
        defer { watch?.noteChange() }
        if durable && !bytesOnDisk {
            try storageCall("fsync") { fsync(file.descriptor) }
        }
        if replacing {
            try storageCall("renameat") { renameat(folder.descriptor, partName, target.descriptor, name) }
        } else {
            try moveWithoutReplacing(to: name)
        }
        done = true
        file.close()
        if durable {
            try storageCall("fsync") { fsync(target.descriptor) }
            try storageCall("fsync") { fsync(folder.descriptor) }
        }
    }

    /// Never replaces (`renameWithoutReplacing`). Where the file system has no
    /// RENAME_NOREPLACE that is linkat then unlinkat: a crash between the two leaves the
    /// partial file as a second link to the published file, with its record, and the next
    /// start publishes it again, under a collision name.
    private func moveWithoutReplacing(to name: String) throws(StorageError) {
        try renameWithoutReplacing(partName, in: folder.descriptor, to: name, in: target.descriptor, isDirectory: false)
    }

    func discard() {
        guard !done else { return }
        done = true
        _ = try? syscall("unlinkat") { unlinkat(folder.descriptor, partName, 0) }
        file.close()
    }
}
