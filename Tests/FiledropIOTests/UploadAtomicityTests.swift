import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// An upload is invisible until published, never overwrites by accident, and leaves nothing
/// behind when abandoned: in both temporary modes (O_TMPFILE and the named fallback).
@Suite("Upload atomicity")
struct UploadAtomicityTests {
    @Test("The temporary mode is the one asked for", arguments: temporaryModes)
    func temporaryMode(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        let upload = try #require(try fixture.storage.createUpload(in: .root) as? PosixUploadFile)
        defer { upload.discard() }
        if options.anonymousTemporaries {
            #expect(upload.temporary == .anonymous)
        } else {
            guard case .named(let name) = upload.temporary else {
                Issue.record("expected a named temporary, got \(upload.temporary)")
                return
            }
            #expect(StorageNames.isTemporary(name))
        }
    }

    @Test("Nothing is visible by name until publish", arguments: temporaryModes)
    func invisibleUntilPublished(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        let upload = try fixture.storage.createUpload(in: .root)
        try bytes("partial").withUnsafeBytes { try upload.write($0) }

        #expect(try fixture.storage.list(.root).isEmpty)
        #expect(try fixture.storage.metadata(storagePath("😀.bin")) == nil)
        let onDisk = try fixture.entriesOnDisk()
        // O_TMPFILE has no name at all; the fallback only a hidden temporary one.
        #expect(onDisk.allSatisfy(StorageNames.isTemporary))
        #expect(onDisk.count == (options.anonymousTemporaries ? 0 : 1))

        try upload.publish(as: "😀.bin", replacing: false, durable: true)
        #expect(try fixture.entriesOnDisk() == ["😀.bin"])
        #expect(fixture.contents("😀.bin") == bytes("partial"))
    }

    @Test("Publishing onto an existing name fails with .exists and changes nothing", arguments: temporaryModes)
    func noSilentOverwrite(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        try fixture.upload(bytes("first"), as: "file\n1.txt")
        let second = try fixture.storage.createUpload(in: .root)
        try bytes("second").withUnsafeBytes { try second.write($0) }

        #expect(throws: StorageError.exists) { try second.publish(as: "file\n1.txt", replacing: false, durable: true) }
        #expect(fixture.contents("file\n1.txt") == bytes("first"))

        // The upload survives the refusal, so the caller can pick another name.
        try second.publish(as: "file\n1 (1).txt", replacing: false, durable: false)
        #expect(fixture.contents("file\n1 (1).txt") == bytes("second"))
        #expect(try fixture.entriesOnDisk() == ["file\n1.txt", "file\n1 (1).txt"])
    }

    @Test("Publishing onto a directory or a symlink's name fails without replacing", arguments: temporaryModes)
    func noOverwriteOfOtherKinds(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        #expect(mkdir(fixture.path + "/dir", 0o755) == 0)
        #expect(symlink("/nonexistent/target", fixture.path + "/link") == 0)
        let upload = try fixture.storage.createUpload(in: .root)
        defer { upload.discard() }
        #expect(throws: StorageError.exists) { try upload.publish(as: "dir", replacing: false, durable: false) }
        #expect(throws: StorageError.exists) { try upload.publish(as: "link", replacing: false, durable: false) }
        #expect(throws: StorageError.isADirectory) { try upload.publish(as: "dir", replacing: true, durable: false) }
        let onDisk = try fixture.entriesOnDisk()
        #expect(Set(onDisk.filter { !StorageNames.isTemporary($0) }) == ["dir", "link"])
        #expect(onDisk.filter(StorageNames.isTemporary).count == (options.anonymousTemporaries ? 0 : 1))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: fixture.path + "/link") == "/nonexistent/target")
    }

    @Test("Replacing swaps in the new file atomically and leaves no temporary", arguments: temporaryModes)
    func replacing(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        try fixture.upload(bytes("old"), as: "report.pdf")
        let reader = try fixture.storage.open(storagePath("report.pdf"))

        try fixture.upload(bytes("new and longer"), as: "report.pdf", replacing: true)
        #expect(fixture.contents("report.pdf") == bytes("new and longer"))
        #expect(try fixture.entriesOnDisk() == ["report.pdf"])
        // A download already running keeps reading the old inode to the end.
        #expect(try readAll(reader) == bytes("old"))
        #expect(try fixture.storage.metadata(storagePath("report.pdf"))?.inode != reader.metadata.inode)
    }

    @Test("Replacing a name that does not exist yet just creates it", arguments: temporaryModes)
    func replacingNothing(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        try fixture.upload(bytes("fresh"), as: "a%20b.txt", replacing: true)
        #expect(try fixture.entriesOnDisk() == ["a%20b.txt"])
    }

    @Test("discard leaves nothing on disk and may be repeated", arguments: temporaryModes)
    func discard(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        let upload = try fixture.storage.createUpload(in: storagePath("sub"))
        try Array(repeating: UInt8(7), count: 100_000).withUnsafeBytes { try upload.write($0) }
        upload.discard()
        upload.discard()
        #expect(try fixture.entriesOnDisk("sub").isEmpty)
    }

    @Test("An upload dropped without publish or discard leaves nothing", arguments: temporaryModes)
    func abandoned(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        do {
            let upload = try fixture.storage.createUpload(in: .root)
            try bytes("aborted mid-way").withUnsafeBytes { try upload.write($0) }
            if !options.anonymousTemporaries {
                #expect(try fixture.entriesOnDisk().count == 1)
            }
        }
        #expect(try fixture.entriesOnDisk().isEmpty)
    }

    @Test("Publish with the fsync switch on and off", arguments: [true, false], [true, false])
    func durability(fsync: Bool, durable: Bool) throws {
        let fixture = try SaveDirectoryFixture()
        let upload = try fixture.storage.createUpload(in: storagePath("new", "dirs"), checksummed: true, durable: fsync)
        try bytes("durable?").withUnsafeBytes { try upload.write($0) }
        try upload.publish(as: "d.txt", replacing: false, durable: durable)
        #expect(fixture.contents("new/dirs/d.txt") == bytes("durable?"))
    }

    @Test(
        "Publish names must be plain, unreserved components", arguments: ["", ".", "..", "a/b", ".filedrop-tmp-1", ".filedrop"])
    func publishNames(name: String) throws {
        let fixture = try SaveDirectoryFixture()
        let upload = try fixture.storage.createUpload(in: .root)
        defer { upload.discard() }
        #expect(throws: StorageError.notAllowed) { try upload.publish(as: name, replacing: false, durable: false) }
        #expect(throws: StorageError.notAllowed) { try upload.publish(as: name, replacing: true, durable: false) }
    }

    @Test("A name longer than NAME_MAX is .nameTooLong", arguments: temporaryModes)
    func nameTooLong(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options)
        let upload = try fixture.storage.createUpload(in: .root)
        defer { upload.discard() }
        // ext4 and tmpfs allow 255 bytes: 256 is one over.
        #expect(throws: StorageError.nameTooLong) {
            try upload.publish(as: String(repeating: "n", count: 256), replacing: false, durable: false)
        }
        try upload.publish(as: String(repeating: "n", count: 255), replacing: false, durable: false)
    }

    @Test("Writes across many write-back chunks keep every byte and the CRC", arguments: temporaryModes)
    func writebackChunks(options: StorageOptions) throws {
        var options = options
        options.writebackChunk = 4096
        let fixture = try SaveDirectoryFixture(options: options)
        let upload = try fixture.storage.createUpload(in: .root)
        var expected: [UInt8] = []
        var crc = CRC32()
        // Odd-sized writes so chunk boundaries fall mid-write.
        for round in 0..<200 {
            let piece = (0..<(1000 + round * 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
            try piece.withUnsafeBytes { try upload.write($0) }
            expected += piece
            crc.update(piece)
            if upload.writebackDue { try upload.paceWriteback() }
        }
        #expect(!upload.writebackDue)
        try upload.publish(as: "big.bin", replacing: false, durable: true)
        #expect(upload.bytesWritten == UInt64(expected.count))
        #expect(upload.crc32 == crc.value)
        #expect(fixture.contents("big.bin") == expected)
    }

    /// Another daemon on the same directory without O_TMPFILE (NFS) writes into a named
    /// temporary; a daemon starting meanwhile must leave it, then the upload publishes.
    @Test("A named temporary in flight is kept by the start-up sweep")
    func inFlightNamedTemporaryIsKept() throws {
        let fixture = try SaveDirectoryFixture(options: StorageOptions(anonymousTemporaries: false))
        let inFlight = try fixture.storage.createUpload(in: .root)
        try bytes("still arriving").withUnsafeBytes { try inFlight.write($0) }
        #expect(fixture.storage.removeStaleTemporaries() == 0)
        try inFlight.publish(as: "arrived.txt", replacing: false, durable: false)
        #expect(fixture.contents("arrived.txt") == bytes("still arriving"))
        #expect(try fixture.entriesOnDisk() == ["arrived.txt"])
    }

    @Test("Stale named temporaries from a crash are removed at start, nothing else")
    func staleTemporaries() throws {
        let fixture = try SaveDirectoryFixture()
        let outside = try SaveDirectoryFixture()
        #expect(
            FileManager.default.createFile(atPath: fixture.path + "/.filedrop-tmpish but not ours", contents: Data("keep".utf8)))
        try fixture.upload(bytes("keep"), as: "keep.txt", in: storagePath("a", "b"))
        for relative in [".filedrop-tmp-0000000000000001", "a/.filedrop-tmp-0000000000000002", "a/b/.filedrop-tmp-x"] {
            #expect(FileManager.default.createFile(atPath: fixture.path + "/" + relative, contents: Data("junk".utf8)))
        }
        #expect(
            FileManager.default.createFile(
                atPath: outside.path + "/.filedrop-tmp-0000000000000003", contents: Data("theirs".utf8)))
        #expect(symlink(outside.path, fixture.path + "/a/elsewhere") == 0)
        let inFlight = try fixture.storage.createUpload(in: .root)
        inFlight.discard()

        #expect(fixture.storage.removeStaleTemporaries() == 3)
        #expect(try fixture.entriesOnDisk() == [".filedrop-tmpish but not ours", "a"])
        #expect(try fixture.entriesOnDisk("a") == ["b", "elsewhere"])
        #expect(try fixture.entriesOnDisk("a/b") == ["keep.txt"])
        #expect(try outside.entriesOnDisk() == [".filedrop-tmp-0000000000000003"])
        #expect(fixture.storage.removeStaleTemporaries() == 0)
    }
}
