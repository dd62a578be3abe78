import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// Several daemons on one save directory (issue 20): an upload's record and partial file
/// are found by any of them, and the partial file's OFD lock keeps two writers apart. OFD
/// locks belong to the open file, not the process, so two opens here exclude each other
/// exactly as two daemons do.
@Suite("PosixPartialFile lock")
struct PosixPartialFileLockTests {
    static let id = "0123456789abcdef0123456789abcdef"

    /// A second daemon: another storage object over the same directory, made before the upload.
    static func twoDaemons() throws -> (
        fixture: SaveDirectoryFixture, first: PosixPartialUploadArea, second: PosixPartialUploadArea
    ) {
        let fixture = try SaveDirectoryFixture()
        return (fixture, fixture.storage.partialUploads, try PosixStorage(root: fixture.path).partialUploads)
    }

    @Test func anUploadMadeByAnotherDaemonIsLoadedWithItsSizeAndRecord() throws {
        let (fixture, first, second) = try Self.twoDaemons()
        defer { withExtendedLifetime(fixture) {} }
        try first.create(id: Self.id, record: Array("record".utf8), durable: false)
        let file = try first.openForAppending(id: Self.id)
        try Array("hello".utf8).withUnsafeBytes { try file.write($0) }
        let found = try second.load(id: Self.id)
        #expect(found.size == 5)
        #expect(found.record == Array("record".utf8))
        #expect(second.ids() == [Self.id])
        first.remove(id: Self.id)
        #expect(throws: StorageError.notFound) { try second.load(id: Self.id) }
    }

    @Test func aHalfMadeUploadIsNotListedAndNotRemovedByTheListing() throws {
        let (fixture, first, second) = try Self.twoDaemons()
        try first.create(id: Self.id, record: Array("r".utf8), durable: false)
        // As if another daemon were between writing the partial file and the record.
        #expect(unlink(fixture.path + "/.filedrop-tus/" + Self.id + ".info") == 0)
        #expect(second.ids().isEmpty)
        #expect(try fixture.entriesOnDisk(".filedrop-tus") == [Self.id + ".part"])
    }

    @Test func twoOpenFilesExcludeEachOtherUntilUnlockOrClose() throws {
        let (fixture, first, second) = try Self.twoDaemons()
        defer { withExtendedLifetime(fixture) {} }
        try first.create(id: Self.id, record: Array("r".utf8), durable: false)
        let writerA = try first.openForAppending(id: Self.id)
        var writerB: (any PartialUploadFile)? = try second.openForAppending(id: Self.id)
        #expect(try writerA.tryLock())
        #expect(try writerA.tryLock(), "taking it again through the same open file is fine")
        #expect(try writerB?.tryLock() == false)
        writerA.unlock()
        #expect(try writerB?.tryLock() == true)
        #expect(try writerA.tryLock() == false)
        writerB = nil
        #expect(try writerA.tryLock(), "closed: the kernel let go of its lock")
    }

    @Test func aLockGrantedAfterTheUploadLeftTheAreaIsRefused() throws {
        let (fixture, first, second) = try Self.twoDaemons()
        try first.create(id: Self.id, record: Array("r".utf8), durable: false)
        // Opened before the other daemon published it, locked after.
        let late = try second.openForAppending(id: Self.id)
        let adopted = try first.adopt(id: Self.id, into: .root, durable: false)
        try adopted.publish(as: "done.bin", replacing: false, durable: false)
        #expect(throws: StorageError.notFound) { try late.tryLock() }
        #expect(fixture.contents("done.bin") == [])
        // Removed (expired) rather than published: the same.
        try first.create(id: Self.id, record: Array("r".utf8), durable: false)
        let later = try second.openForAppending(id: Self.id)
        first.remove(id: Self.id)
        #expect(throws: StorageError.notFound) { try later.tryLock() }
    }
}
