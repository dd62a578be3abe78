import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// The tus state on disk: records written atomically, partial files that survive a restart,
/// crash leftovers cleaned at recovery, adoption through the no-replace publish.
@Suite("PosixPartialUploadArea")
struct PosixPartialUploadAreaTests {
    static let id = "0123456789abcdef0123456789abcdef"
    static let folder = ".filedrop-tus"

    func append(_ text: String, to area: PosixPartialUploadArea, id: String = Self.id) throws {
        let file = try area.openForAppending(id: id)
        try Array(text.utf8).withUnsafeBytes { try file.write($0) }
        try file.synchronize()
    }

    @Test func createdUploadIsRecoveredWithItsOffsetAndRecord() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.storage.partialUploads.create(id: Self.id, record: Array("record v1".utf8), durable: true)
        try append("hello ", to: fixture.storage.partialUploads)
        try append("world", to: fixture.storage.partialUploads)
        // A new daemon: a fresh storage object over the same directory.
        let reopened = try PosixStorage(root: fixture.path)
        let found = reopened.partialUploads.recover()
        #expect(found.map(\.id) == [Self.id])
        #expect(found.first?.size == 11)
        #expect(found.first?.record == Array("record v1".utf8))
        #expect(fixture.contents("\(Self.folder)/\(Self.id).part") == Array("hello world".utf8))
    }

    @Test func stateIsHiddenFromListingsDownloadsAndTheStaleTemporarySweep() throws {
        let fixture = try SaveDirectoryFixture()
        let area = fixture.storage.partialUploads
        try area.create(id: Self.id, record: Array("r".utf8), durable: true)
        try append("abc", to: area)
        #expect(try fixture.storage.list(.root).isEmpty)
        #expect(throws: StorageError.self) {
            try fixture.storage.open(StoragePath(checkedComponents: [Self.folder, Self.id + ".part"]))
        }
        #expect(fixture.storage.removeStaleTemporaries() == 0)
        #expect(try fixture.entriesOnDisk(Self.folder) == [Self.id + ".part", Self.id + ".info"])
    }

    @Test func savedRecordReplacesTheOldOneAndACrashedSaveLeavesTheOld() throws {
        let fixture = try SaveDirectoryFixture()
        let area = PosixPartialUploadArea(storage: fixture.storage, leftoverGraceSeconds: 0)
        try area.create(id: Self.id, record: Array("length=deferred".utf8), durable: true)
        try area.saveRecord(id: Self.id, Array("length=11".utf8), durable: true)
        #expect(fixture.contents("\(Self.folder)/\(Self.id).info") == Array("length=11".utf8))
        #expect(try fixture.entriesOnDisk(Self.folder) == [Self.id + ".part", Self.id + ".info"])
        // A crash between writing the temporary record and renaming it.
        _ = FileManager.default.createFile(
            atPath: "\(fixture.path)/\(Self.folder)/\(Self.id).info.tmp", contents: Data("half".utf8))
        let found = area.recover()
        #expect(found.first?.record == Array("length=11".utf8))
        #expect(try fixture.entriesOnDisk(Self.folder) == [Self.id + ".part", Self.id + ".info"])
    }

    @Test func piecesACrashSeparatedAreRemoved() throws {
        let fixture = try SaveDirectoryFixture()
        let area = PosixPartialUploadArea(storage: fixture.storage, leftoverGraceSeconds: 0)
        let other = "ffffffffffffffffffffffffffffffff"
        try area.create(id: Self.id, record: Array("r".utf8), durable: true)
        try area.create(id: other, record: Array("r".utf8), durable: true)
        try FileManager.default.removeItem(atPath: "\(fixture.path)/\(Self.folder)/\(Self.id).info")
        try FileManager.default.removeItem(atPath: "\(fixture.path)/\(Self.folder)/\(other).part")
        #expect(fixture.storage.partialUploads.recover().isEmpty)
        #expect(try fixture.entriesOnDisk(Self.folder).count == 2, "fresh: maybe another daemon between its two writes")
        #expect(area.recover().isEmpty)
        #expect(try fixture.entriesOnDisk(Self.folder).isEmpty)
    }

    @Test func truncateDropsAFailedChunk() throws {
        let fixture = try SaveDirectoryFixture()
        let area = fixture.storage.partialUploads
        try area.create(id: Self.id, record: Array("r".utf8), durable: true)
        try append("good", to: area)
        let file = try area.openForAppending(id: Self.id)
        try Array("bad".utf8).withUnsafeBytes { try file.write($0) }
        try file.truncate(to: 4)
        #expect(file.size == 4)
        try Array("!".utf8).withUnsafeBytes { try file.write($0) }
        #expect(fixture.contents("\(Self.folder)/\(Self.id).part") == Array("good!".utf8))
    }

    /// A durable PATCH's writer paces write-back as every durable upload does (the fsync at
    /// the PATCH's end then has little left); appending to a partial file that already holds
    /// bytes counts from its end, and a cut starts the count again.
    @Test func durableWriterPacesWriteBackAcrossChunksAndKeepsEveryByte() throws {
        let fixture = try SaveDirectoryFixture(options: StorageOptions(writebackChunk: 4096))
        let area = fixture.storage.partialUploads
        try area.create(id: Self.id, record: Array("r".utf8), durable: true)
        try append("head", to: area)
        let file = try area.openForAppending(id: Self.id, durable: true)
        var expected = Array("head".utf8)
        var paced = 0
        // Odd-sized writes so chunk boundaries fall mid-write.
        for round in 0..<100 {
            let piece = (0..<(1000 + round * 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
            try piece.withUnsafeBytes { try file.write($0) }
            expected += piece
            if file.writebackDue {
                try file.paceWriteback()
                paced += 1
                #expect(!file.writebackDue)
            }
        }
        // Due once a chunk's worth is written: each pace covers less than a chunk and a piece.
        #expect(paced >= (expected.count - 4) / (4096 + 1000 + 99 * 37))
        try file.truncate(to: 4)
        #expect(!file.writebackDue)
        try Array(repeating: UInt8(ascii: "x"), count: 5000).withUnsafeBytes { try file.write($0) }
        #expect(file.writebackDue)
        try file.paceWriteback()
        try file.synchronize()
        #expect(
            fixture.contents("\(Self.folder)/\(Self.id).part") == Array("head".utf8)
                + Array(repeating: UInt8(ascii: "x"), count: 5000))
    }

    @Test func writerThatIsNotDurableNeverAsksForWriteBack() throws {
        let fixture = try SaveDirectoryFixture(options: StorageOptions(writebackChunk: 4096))
        let area = fixture.storage.partialUploads
        try area.create(id: Self.id, record: Array("r".utf8), durable: false)
        // Opened for a lock or a cut (no `durable`), or by a daemon with fsync off.
        for file in [try area.openForAppending(id: Self.id), try area.openForAppending(id: Self.id, durable: false)] {
            try Array(repeating: UInt8(0), count: 3 * 4096).withUnsafeBytes { try file.write($0) }
            #expect(!file.writebackDue)
        }
    }

    @Test func adoptedFilePublishesWithoutReplacingAndDiscardRemovesIt() throws {
        let fixture = try SaveDirectoryFixture()
        let area = fixture.storage.partialUploads
        try fixture.upload(Array("old".utf8), as: "taken.txt", in: StoragePath(checkedComponents: ["dir"]))
        try area.create(id: Self.id, record: Array("r".utf8), durable: true)
        try append("new bytes", to: area)
        let adopted = try area.adopt(id: Self.id, into: StoragePath(checkedComponents: ["dir"]), durable: true)
        #expect(adopted.bytesWritten == 9)
        #expect(throws: StorageError.exists) { try adopted.publish(as: "taken.txt", replacing: false, durable: true) }
        #expect(fixture.contents("dir/taken.txt") == Array("old".utf8))
        try adopted.publish(as: "fresh.txt", replacing: false, durable: true)
        #expect(fixture.contents("dir/fresh.txt") == Array("new bytes".utf8))
        #expect(try fixture.entriesOnDisk(Self.folder) == [Self.id + ".info"])
        area.remove(id: Self.id)
        #expect(try fixture.entriesOnDisk(Self.folder).isEmpty)

        let second = "abcdefabcdefabcdefabcdefabcdefab"
        try area.create(id: second, record: Array("r".utf8), durable: true)
        let discarded = try area.adopt(id: second, into: .root, durable: true)
        discarded.discard()
        #expect(try fixture.entriesOnDisk(Self.folder) == [second + ".info"])
    }

    @Test(arguments: ["../escape", "", "0123/4567", "ABCDEF"])
    func idsThatAreNotLowercaseHexNeverReachTheDisk(id: String) throws {
        let fixture = try SaveDirectoryFixture()
        #expect(throws: StorageError.notAllowed) { try fixture.storage.partialUploads.create(id: id, record: [1], durable: true) }
    }
}

@Suite("LibcryptoDigests")
struct LibcryptoDigestsTests {
    func digest(_ algorithm: String, _ pieces: [String]) throws -> String {
        let digest = try #require(LibcryptoDigests().makeDigest(algorithm: algorithm))
        for piece in pieces { Array(piece.utf8).withUnsafeBytes { digest.update($0) } }
        return Base64.encode(digest.finish())
    }

    @Test func sha1OfTheProtocolExample() throws {
        // tus.io protocol.md "Checksum": sha1 of "hello world".
        #expect(try digest("sha1", ["hello world"]) == "Kq5sNclPz7QV2+lfQIuc6R7oRu0=")
        #expect(try digest("sha1", ["hel", "", "lo w", "orld"]) == "Kq5sNclPz7QV2+lfQIuc6R7oRu0=")
    }

    @Test func md5OfRFC1321Vector() throws {
        // RFC 1321 A.5: MD5("abc") = 900150983cd24fb0d6963f7d28e17f72.
        #expect(
            try digest("md5", ["a", "bc"])
                == Base64.encode([
                    0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0,
                    0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1, 0x7f, 0x72,
                ]))
    }

    @Test func unknownAlgorithmIsNil() {
        #expect(LibcryptoDigests().makeDigest(algorithm: "sha3") == nil)
        #expect(LibcryptoDigests().algorithms.first == "sha1")
    }
}
