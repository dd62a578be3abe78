import Synchronization

@testable import FiledropCore

/// A `PartialUploadArea` in memory whose `adopt` publishes into an `InMemoryStorage` with the
/// same no-replace rule as the real one, so tus tests run the whole path without a disk.
final class InMemoryPartialUploadArea: PartialUploadArea {
    struct Entry {
        var record: [UInt8]
        var bytes: [UInt8]
        var modified: Int64
    }

    let storage: InMemoryStorage
    let entries = Mutex<[String: Entry]>([:])
    /// Stamps `modified` on creation and every change, as a file's mtime would be.
    let clock: @Sendable () -> Int64
    /// Runs inside every `synchronize`, where the real fsync would block: lets a test act
    /// (send a HEAD) while the upload's fsync is in progress.
    nonisolated(unsafe) var duringSynchronize: (() -> Void)?
    /// `bytesOnDisk` of every `adopt`, in order: whether a publish would skip the file's fsync.
    let adoptedBytesOnDisk = Mutex<[Bool]>([])
    /// Appends fail with this while set (a full disk).
    nonisolated(unsafe) var appendFailure: StorageError?

    init(storage: InMemoryStorage, clock: @escaping @Sendable () -> Int64 = { 0 }) {
        self.storage = storage
        self.clock = clock
    }

    func recover() -> [RecoveredPartialUpload] {
        entries.withLock { all in
            all.map {
                RecoveredPartialUpload(
                    id: $0.key, record: $0.value.record, size: UInt64($0.value.bytes.count), modified: $0.value.modified)
            }
        }
    }

    func create(id: String, record: [UInt8], durable: Bool) throws(StorageError) {
        let created = entries.withLock { all in
            guard all[id] == nil else { return false }
            all[id] = Entry(record: record, bytes: [], modified: clock())
            return true
        }
        if !created { throw .exists }
    }

    func saveRecord(id: String, _ record: [UInt8], durable: Bool) throws(StorageError) {
        try update(id) { $0.record = record }
    }

    func openForAppending(id: String, durable: Bool) throws(StorageError) -> any PartialUploadFile {
        guard entries.withLock({ $0[id] }) != nil else { throw .notFound }
        return MemoryPartialFile(area: self, id: id)
    }

    func remove(id: String) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    func load(id: String) throws(StorageError) -> RecoveredPartialUpload {
        guard let entry = entries.withLock({ $0[id] }) else { throw .notFound }
        return RecoveredPartialUpload(id: id, record: entry.record, size: UInt64(entry.bytes.count), modified: entry.modified)
    }

    func ids() -> [String] { entries.withLock { $0.keys.sorted() } }

    /// Which open file holds each upload's write lock, as the kernel keeps OFD locks.
    let lockHolders = Mutex<[String: ObjectIdentifier]>([:])

    /// Read once with `ByteSumHashing`, as the real area reads with libcrypto.
    func sha256(id: String) throws(StorageError) -> [UInt8] {
        guard let entry = entries.withLock({ $0[id] }) else { throw .notFound }
        rehashes.add(1, ordering: .relaxed)
        let stream = ByteSumHashing().makeStream()
        entry.bytes.withUnsafeBytes { stream.feed($0) }
        return stream.finish()
    }

    /// How often `sha256(id:)` read a partial file.
    let rehashes = Atomic<Int>(0)

    func adopt(id: String, into directory: StoragePath, durable: Bool, bytesOnDisk: Bool) throws(StorageError) -> any UploadFile {
        guard let entry = entries.withLock({ $0[id] }) else { throw .notFound }
        adoptedBytesOnDisk.withLock { $0.append(bytesOnDisk) }
        let upload = try storage.createUpload(in: directory, checksummed: true, durable: durable)
        let failure: StorageError? = entry.bytes.withUnsafeBytes { bytes in
            do throws(StorageError) {
                try upload.write(bytes)
                return nil
            } catch { return error }
        }
        if let failure { throw failure }
        return AdoptedMemoryUpload(upload: upload, area: self, id: id)
    }

    func update(_ id: String, _ change: (inout Entry) -> Void) throws(StorageError) {
        let found = entries.withLock { all in
            guard var entry = all[id] else { return false }
            change(&entry)
            entry.modified = clock()
            all[id] = entry
            return true
        }
        if !found { throw .notFound }
    }

    func bytes(_ id: String) -> [UInt8]? { entries.withLock { $0[id]?.bytes } }
}

final class MemoryPartialFile: PartialUploadFile {
    let area: InMemoryPartialUploadArea
    let id: String

    init(area: InMemoryPartialUploadArea, id: String) {
        self.area = area
        self.id = id
    }

    var size: UInt64 { UInt64(area.bytes(id)?.count ?? 0) }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        if let failure = area.appendFailure { throw failure }
        try area.update(id) { $0.bytes.append(contentsOf: bytes) }
        area.storage.recordWrite(bytes.count)
    }

    func truncate(to size: UInt64) throws(StorageError) {
        try area.update(id) { $0.bytes.removeLast($0.bytes.count - Int(size)) }
    }

    func synchronize() throws(StorageError) {
        area.duringSynchronize?()
    }

    func tryLock() throws(StorageError) -> Bool {
        guard area.bytes(id) != nil else { throw .notFound }
        return area.lockHolders.withLock { holders in
            guard holders[id] == nil || holders[id] == ObjectIdentifier(self) else { return false }
            holders[id] = ObjectIdentifier(self)
            return true
        }
    }

    func unlock() {
        area.lockHolders.withLock { holders in
            if holders[id] == ObjectIdentifier(self) { holders[id] = nil }
        }
    }

    /// A closed file lets go of its lock, as with OFD locks.
    deinit { unlock() }
}

/// The partial file handed to the policy: publishing moves it out of the area.
final class AdoptedMemoryUpload: UploadFile {
    let upload: any UploadFile
    let area: InMemoryPartialUploadArea
    let id: String

    init(upload: any UploadFile, area: InMemoryPartialUploadArea, id: String) {
        self.upload = upload
        self.area = area
        self.id = id
    }

    var bytesWritten: UInt64 { upload.bytesWritten }
    var crc32: UInt32? { upload.crc32 }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError) { throw .notAllowed }
    func recordSHA256(_ hex: String) { upload.recordSHA256(hex) }
    var writebackDue: Bool { false }
    func paceWriteback() throws(StorageError) {}

    func publish(as name: String, replacing: Bool, durable: Bool) throws(StorageError) {
        try upload.publish(as: name, replacing: replacing, durable: durable)
        area.remove(id: id)
    }

    func discard() {
        upload.discard()
        area.remove(id: id)
    }
}

/// A stand-in for libcrypto: "sum8" is the byte sum modulo 256, enough to tell a matching
/// body from another.
struct ByteSumDigests: DigestProvider {
    var algorithms: [String] { ["sum8"] }

    func makeDigest(algorithm: String) -> (any IncrementalDigest)? {
        algorithm == "sum8" ? ByteSum() : nil
    }

    final class ByteSum: IncrementalDigest {
        var sum: UInt8 = 0
        func update(_ bytes: UnsafeRawBufferPointer) { for byte in bytes { sum &+= byte } }
        func finish() -> [UInt8] { [sum] }
    }

    static func header(_ body: [UInt8]) -> String {
        "sum8 " + Base64.encode([body.reduce(0, &+)])
    }
}

/// A stand-in for `PipelinedSHA256`: 32 bytes, each the sum modulo 256 of the bytes at its
/// position modulo 32, enough to tell one content from another. `isBehind` is true every
/// `behindEvery` bytes so tests see the writer pause for the hasher.
struct ByteSumHashing: UploadHashing {
    var behindEvery: UInt64?

    func makeStream() -> any UploadDigestStream { Stream(behindEvery: behindEvery) }

    final class Stream: UploadDigestStream, @unchecked Sendable {
        let behindEvery: UInt64?
        private(set) var bytesFed: UInt64 = 0
        private var sums = [UInt8](repeating: 0, count: 32)
        private var caughtUpAt: UInt64 = 0
        private(set) var waits = 0

        init(behindEvery: UInt64?) { self.behindEvery = behindEvery }

        func feed(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                sums[Int(bytesFed % 32)] &+= byte
                bytesFed += 1
            }
        }

        var isBehind: Bool { behindEvery.map { bytesFed >= caughtUpAt + $0 } ?? false }

        func waitUntilCaughtUp() {
            caughtUpAt = bytesFed
            waits += 1
        }

        private(set) var settles = 0
        func settle() { settles += 1 }

        func finish() -> [UInt8] { sums }
    }

    static func hex(_ body: [UInt8]) -> String {
        let stream = ByteSumHashing().makeStream()
        body.withUnsafeBytes { stream.feed($0) }
        return SHA256Text.hex(stream.finish())
    }
}

/// Wall-clock seconds a test moves by hand.
final class ManualClock: Sendable {
    private let seconds = Atomic<Int64>(1_700_000_000)
    var now: Int64 { seconds.load(ordering: .relaxed) }
    func advance(by delta: Int64) { seconds.add(delta, ordering: .relaxed) }
}
