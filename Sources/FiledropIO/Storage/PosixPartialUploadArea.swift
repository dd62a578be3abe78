import FiledropCore
import FiledropServer
import Glibc

/// Resumable uploads on disk: `<save>/.filedrop-tus/<id>.part` holds the bytes received so
/// far and `<id>.info` the record. The folder's name starts with `.filedrop`, so the storage
/// never lists, serves or accepts it (`StorageNames.isReserved`), and
/// `removeStaleTemporaries()` only deletes `.filedrop-tmp-*` files, never this folder.
///
/// Crash safety: the record is written to `<id>.info.tmp`, fsync'ed and renamed over
/// `<id>.info` (rename(2) is atomic), so a crash leaves the old record or the new one; the
/// offset is the partial file's size, fsync'ed before a PATCH is acknowledged. Pieces a crash
/// separates (a partial file without a record, or the reverse) are removed at recovery.
public final class PosixPartialUploadArea: PartialUploadArea {
    static let folderName = ".filedrop-tus"
    static let partSuffix = ".part"
    static let recordSuffix = ".info"
    static let temporarySuffix = ".info.tmp"
    /// Records are a few hundred bytes; anything much larger is not ours.
    static let maxRecordSize = 64 << 10

    let storage: PosixStorage
    /// Crash leftovers younger than this are left alone at recovery: another daemon on the
    /// same save directory may be between writing an upload's two pieces, or saving its record.
    let leftoverGraceSeconds: Int64

    public init(storage: PosixStorage, leftoverGraceSeconds: Int64 = 60) {
        self.storage = storage
        self.leftoverGraceSeconds = leftoverGraceSeconds
    }

    /// What the folder holds: the ids with a partial file, those with a record, and the
    /// names of temporary records (a record save in progress, or cut off by a crash).
    private struct Pieces {
        var parts: Set<String> = []
        var records: Set<String> = []
        var temporaries: [String] = []
    }

    private func pieces(in folder: FileDescriptor) -> Pieces? {
        guard let names = try? DirectoryEntries.names(in: folder) else { return nil }
        var found = Pieces()
        for name in names {
            if name.hasSuffix(Self.temporarySuffix) {
                found.temporaries.append(name)
            } else if name.hasSuffix(Self.partSuffix) {
                found.parts.insert(String(name.dropLast(Self.partSuffix.count)))
            } else if name.hasSuffix(Self.recordSuffix) {
                found.records.insert(String(name.dropLast(Self.recordSuffix.count)))
            }
        }
        return found
    }

    public func recover() -> [RecoveredPartialUpload] {
        guard let folder = try? openFolder(creating: false), let pieces = pieces(in: folder) else { return [] }
        let (parts, records) = (pieces.parts, pieces.records)
        for temporary in pieces.temporaries {
            unlinkLeftover(temporary, in: folder)
        }
        for orphan in parts.symmetricDifference(records) {
            unlinkLeftover(orphan + Self.partSuffix, in: folder)
            unlinkLeftover(orphan + Self.recordSuffix, in: folder)
        }
        var found: [RecoveredPartialUpload] = []
        for id in parts.intersection(records).sorted() {
            var status = stat()
            guard
                (try? syscall("fstatat") { fstatat(folder.descriptor, id + Self.partSuffix, &status, AT_SYMLINK_NOFOLLOW) })
                    != nil,
                status.isRegularFile, let record = try? readRecord(id + Self.recordSuffix, in: folder)
            else {
                unlink(id + Self.partSuffix, in: folder)
                unlink(id + Self.recordSuffix, in: folder)
                continue
            }
            found.append(
                RecoveredPartialUpload(
                    id: id, record: record, size: UInt64(status.st_size), modified: Int64(status.st_mtim.tv_sec)))
        }
        return found
    }

    public func create(id: String, record: [UInt8], durable: Bool) throws(StorageError) {
        try checkID(id)
        let folder = try openFolder(creating: true, durable: durable)
        let part = try storageCall("openat") {
            openat(
                folder.descriptor, id + Self.partSuffix, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                storage.options.fileMode)
        }
        _ = Glibc.close(part)
        do throws(StorageError) {
            try writeRecord(id: id, record, in: folder, durable: durable)
        } catch {
            unlink(id + Self.partSuffix, in: folder)
            throw error
        }
    }

    public func saveRecord(id: String, _ record: [UInt8], durable: Bool) throws(StorageError) {
        try checkID(id)
        try writeRecord(id: id, record, in: try openFolder(creating: false), durable: durable)
    }

    public func openForAppending(id: String, durable: Bool) throws(StorageError) -> any PartialUploadFile {
        try checkID(id)
        let folder = try openFolder(creating: false)
        let descriptor = try storageCall("openat") {
            openat(folder.descriptor, id + Self.partSuffix, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        }
        return PosixPartialFile(
            FileDescriptor(owning: descriptor), folder: folder, name: id + Self.partSuffix,
            options: storage.options, durable: durable)
    }

    public func load(id: String) throws(StorageError) -> RecoveredPartialUpload {
        try checkID(id)
        let folder = try openFolder(creating: false)
        let record = try readRecord(id + Self.recordSuffix, in: folder)
        var status = stat()
        try storageCall("fstatat") { fstatat(folder.descriptor, id + Self.partSuffix, &status, AT_SYMLINK_NOFOLLOW) }
        guard status.isRegularFile else { throw .notFound }
        return RecoveredPartialUpload(
            id: id, record: record, size: UInt64(status.st_size), modified: Int64(status.st_mtim.tv_sec))
    }

    public func ids() -> [String] {
        guard let folder = try? openFolder(creating: false), let pieces = pieces(in: folder) else { return [] }
        return pieces.parts.intersection(pieces.records).filter { (try? checkID($0)) != nil }.sorted()
    }

    public func remove(id: String) {
        guard (try? checkID(id)) != nil, let folder = try? openFolder(creating: false) else { return }
        for suffix in [Self.partSuffix, Self.recordSuffix, Self.temporarySuffix] {
            unlink(id + suffix, in: folder)
        }
    }

    public func adopt(id: String, into directory: StoragePath, durable: Bool, bytesOnDisk: Bool) throws(StorageError)
        -> any UploadFile
    {
        try checkID(id)
        let folder = try openFolder(creating: false)
        let target = try storage.openDirectory(directory, creating: true, durable: durable)
        let descriptor = try storageCall("openat") {
            openat(folder.descriptor, id + Self.partSuffix, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        }
        return try PosixAdoptedUpload(
            file: FileDescriptor(owning: descriptor), folder: folder, partName: id + Self.partSuffix,
            target: target, bytesOnDisk: bytesOnDisk, publishing: storage.rootWatch)
    }

    public func sha256(id: String) throws(StorageError) -> [UInt8] {
        try checkID(id)
        let folder = try openFolder(creating: false)
        let file = FileDescriptor(
            owning: try storageCall("openat") {
                openat(folder.descriptor, id + Self.partSuffix, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            })
        return try PipelinedSHA256.digest(reading: file)
    }

    // MARK: Files

    /// The hidden folder, made (mode 0700: partial uploads are nobody else's business) when
    /// asked and missing, with `durable` synced into the save directory.
    private func openFolder(creating: Bool, durable: Bool = false) throws(StorageError) -> FileDescriptor {
        do throws(SystemError) {
            return FileDescriptor(
                owning: try syscall("openat") { openat(storage.root.descriptor, Self.folderName, PosixStorage.directoryFlags) })
        } catch  where error.errno == ENOENT && creating {
            do throws(SystemError) {
                try syscall("mkdirat") { mkdirat(storage.root.descriptor, Self.folderName, 0o700) }
                if durable {
                    try syscall("fsync") { fsync(storage.root.descriptor) }
                }
            } catch  where error.errno == EEXIST {
            } catch {
                throw StorageError(error)
            }
            return try openFolder(creating: false)
        } catch {
            throw StorageError(error)
        }
    }

    /// Temp name, fsync, rename over the old record, fsync the folder (the syncs only when
    /// `durable`).
    private func writeRecord(id: String, _ record: [UInt8], in folder: FileDescriptor, durable: Bool) throws(StorageError) {
        let temporary = id + Self.temporarySuffix
        let file = FileDescriptor(
            owning: try storageCall("openat") {
                openat(folder.descriptor, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
            })
        do throws(StorageError) {
            var written = 0
            while written < record.count {
                written += try storageCall("write") {
                    record.withUnsafeBytes { Glibc.write(file.descriptor, $0.baseAddress! + written, $0.count - written) }
                }
            }
            if durable {
                try storageCall("fsync") { fsync(file.descriptor) }
            }
            file.close()
            try storageCall("renameat") { renameat(folder.descriptor, temporary, folder.descriptor, id + Self.recordSuffix) }
        } catch {
            unlink(temporary, in: folder)
            throw error
        }
        if durable {
            try storageCall("fsync") { fsync(folder.descriptor) }
        }
    }

    private func readRecord(_ name: String, in folder: FileDescriptor) throws(StorageError) -> [UInt8] {
        let file = FileDescriptor(
            owning: try storageCall("openat") { openat(folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) })
        var bytes = [UInt8](repeating: 0, count: Self.maxRecordSize + 1)
        var count = 0
        while count < bytes.count {
            let read = try storageCall("read") {
                bytes.withUnsafeMutableBytes { Glibc.read(file.descriptor, $0.baseAddress! + count, $0.count - count) }
            }
            if read == 0 { break }
            count += read
        }
        guard count <= Self.maxRecordSize else { throw .notAllowed }
        return Array(bytes.prefix(count))
    }

    /// Unlinks a crash leftover unless it changed within `leftoverGraceSeconds`.
    private func unlinkLeftover(_ name: String, in folder: FileDescriptor) {
        var status = stat()
        guard (try? syscall("fstatat") { fstatat(folder.descriptor, name, &status, AT_SYMLINK_NOFOLLOW) }) != nil else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        if Int64(now.tv_sec) - Int64(status.st_mtim.tv_sec) >= leftoverGraceSeconds { unlink(name, in: folder) }
    }

    private func unlink(_ name: String, in folder: FileDescriptor) {
        _ = try? syscall("unlinkat") { unlinkat(folder.descriptor, name, 0) }
    }

    /// Ids come from the core as 32 hex digits; anything else never reaches a file name.
    private func checkID(_ id: String) throws(StorageError) {
        guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else {
            throw .notAllowed
        }
    }
}

/// write(2) until every byte is out: it may write less than asked (a signal, a nearly full
/// disk), so go on from there.
func writeAll(_ bytes: UnsafeRawBufferPointer, to file: FileDescriptor) throws(StorageError) {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
        offset += try storageCall("write") { Glibc.write(file.descriptor, base + offset, bytes.count - offset) }
    }
}

extension PosixStorage {
    /// The resumable-upload area of this save directory.
    public var partialUploads: PosixPartialUploadArea { PosixPartialUploadArea(storage: self) }
}
