import FiledropCore
import FiledropServer
import Glibc

/// An upload streaming into a file nobody can see yet (GCDWebServer and dufs do the same:
/// temp file in the target directory, then a link or rename into place).
///
/// Preferably an O_TMPFILE: it has no name until `publish` links it in, and the kernel frees
/// it when the descriptor closes, so a crash or an abort leaves nothing. Where the file
/// system lacks O_TMPFILE it is a hidden `.filedrop-tmp-*` file that `publish` renames with
/// RENAME_NOREPLACE and `discard` unlinks. Owned by one connection at a time.
final class PosixUploadFile: UploadFile {
    enum Temporary: Equatable {
        case anonymous
        case named(String)
    }

    private enum State {
        case writing, published, discarded
    }

    let temporary: Temporary
    private let directory: FileDescriptor
    private let file: FileDescriptor
    /// Written bytes go to write-back early, so the fsync at publish has little left to do.
    private var writeback: WritebackPacer
    private var state = State.writing
    /// nil when nobody will read the checksum: CRC-32 costs as much CPU as the write itself.
    private var checksum: CRC32?
    private(set) var bytesWritten: UInt64 = 0
    /// Told of the publish, so a file checked before under the same name is checked again.
    private let watch: DirectoryChangeWatch?

    var crc32: UInt32? { checksum?.value }

    /// Creates the temporary in `directory`, anonymous when `anonymous` and the file system
    /// allows it.
    init(
        in directory: FileDescriptor, options: StorageOptions, anonymous: Bool, checksummed: Bool, durable: Bool,
        publishing watch: DirectoryChangeWatch? = nil
    ) throws(StorageError) {
        checksum = checksummed ? CRC32() : nil
        self.watch = watch
        self.directory = directory
        writeback = WritebackPacer(options: options, durable: durable)
        if anonymous, let descriptor = try Self.openAnonymous(in: directory, mode: options.fileMode) {
            file = FileDescriptor(owning: descriptor)
            temporary = .anonymous
        } else {
            let (descriptor, name) = try Self.createNamed(in: directory, mode: options.fileMode)
            file = FileDescriptor(owning: descriptor)
            temporary = .named(name)
        }
    }

    deinit {
        discard()
    }

    /// open(2) with O_TMPFILE; nil when this file system does not support it.
    private static func openAnonymous(in directory: FileDescriptor, mode: mode_t) throws(StorageError) -> Int32? {
        do throws(SystemError) {
            return try syscall("openat") {
                openat(directory.descriptor, ".", LinuxFileCalls.O_TMPFILE | O_WRONLY | O_CLOEXEC, mode)
            }
        } catch  where [EOPNOTSUPP, EISDIR, EINVAL].contains(error.errno) {
            // open(2): EISDIR/EINVAL from kernels or C libraries that predate O_TMPFILE,
            // EOPNOTSUPP from file systems that do not implement it.
            return nil
        } catch {
            throw StorageError(error)
        }
    }

    /// A new hidden `.filedrop-tmp-*` file; O_EXCL so it is ours even if a name repeats, and
    /// locked until it closes.
    private static func createNamed(in directory: FileDescriptor, mode: mode_t) throws(StorageError) -> (Int32, String) {
        while true {
            let name = StorageNames.randomTemporaryName()
            do throws(SystemError) {
                let descriptor = try syscall("openat") {
                    openat(directory.descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
                }
                // Marks it as in flight for other daemons' start-up sweeps (`OpenFileLock`).
                _ = OpenFileLock.take(descriptor)
                return (descriptor, name)
            } catch  where error.errno == EEXIST {
                continue
            } catch {
                throw StorageError(error)
            }
        }
    }

    // MARK: UploadFile

    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        precondition(state == .writing, "write after publish or discard")
        try writeAll(bytes, to: file)
        checksum?.update(bytes)
        bytesWritten += UInt64(bytes.count)
    }

    func recordSHA256(_ hex: String) {
        SHA256Attribute.set(hex, on: file)
    }

    var writebackDue: Bool {
        state == .writing && writeback.isDue(written: bytesWritten)
    }

    func paceWriteback() throws(StorageError) {
        guard state == .writing else { return }
        try writeback.pace(file.descriptor, written: bytesWritten)
    }

    func publish(as name: String, replacing: Bool, durable: Bool) throws(StorageError) {
        precondition(state == .writing, "publish after publish or discard")
        guard StorageNames.isClientName(name) else { throw .notAllowed }
        defer { watch?.noteChange() }
        if durable {
            try storageCall("fsync") { fsync(file.descriptor) }
        }
        switch (temporary, replacing) {
        case (.anonymous, false):
            try linkAnonymous(as: name)
        case (.anonymous, true):
            let hiddenName = try linkAnonymousUnderTemporaryName()
            try replace(name, with: hiddenName)
        case (.named(let hiddenName), false):
            try renameWithoutReplacing(hiddenName, to: name)
        case (.named(let hiddenName), true):
            try storageCall("renameat") { renameat(directory.descriptor, hiddenName, directory.descriptor, name) }
        }
        // Visible now: from here on a failure must not unlink anything.
        state = .published
        file.close()
        if durable {
            try storageCall("fsync") { fsync(directory.descriptor) }
        }
    }

    func discard() {
        guard state == .writing else { return }
        state = .discarded
        if case .named(let hiddenName) = temporary {
            _ = try? syscall("unlinkat") { unlinkat(directory.descriptor, hiddenName, 0) }
        }
        file.close()
    }

    // MARK: Publishing a named temporary

    /// A crash between renameWithoutReplacing's link and unlink leaves the hidden name as a
    /// second link to the published file, which the stale-temporary sweep unlinks.
    private func renameWithoutReplacing(_ hiddenName: String, to name: String) throws(StorageError) {
        try FiledropIO.renameWithoutReplacing(
            hiddenName, in: directory.descriptor, to: name, in: directory.descriptor,
            isDirectory: false)
    }

    // MARK: Publishing an O_TMPFILE

    /// open(2), O_TMPFILE: linkat through /proc/self/fd with AT_SYMLINK_FOLLOW gives the file
    /// a name without CAP_DAC_READ_SEARCH (which AT_EMPTY_PATH would need, and a DynamicUser
    /// service lacks). linkat never replaces: an existing name fails with EEXIST.
    private func linkAnonymous(as name: String) throws(StorageError) {
        let source = "/proc/self/fd/\(file.descriptor)"
        try storageCall("linkat") { linkat(AT_FDCWD, source, directory.descriptor, name, AT_SYMLINK_FOLLOW) }
    }

    private func linkAnonymousUnderTemporaryName() throws(StorageError) -> String {
        while true {
            let hiddenName = StorageNames.randomTemporaryName()
            do throws(StorageError) {
                try linkAnonymous(as: hiddenName)
                return hiddenName
            } catch .exists {
                continue
            }
        }
    }

    /// rename(2) is atomic: readers see the old file or the new one, never neither.
    /// On failure the hidden name goes away, so the upload is unnamed again.
    private func replace(_ name: String, with hiddenName: String) throws(StorageError) {
        do throws(StorageError) {
            try storageCall("renameat") { renameat(directory.descriptor, hiddenName, directory.descriptor, name) }
        } catch {
            _ = try? syscall("unlinkat") { unlinkat(directory.descriptor, hiddenName, 0) }
            throw error
        }
    }
}
