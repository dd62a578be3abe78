import Foundation
import Glibc
import Testing
@testable import FiledropCore
@testable import FiledropIO

/// Full and read-only file systems, on a small tmpfs mounted for the test. Needs root and
/// mount(2); skipped with a note where `mount -t tmpfs` is not permitted.
@Suite(
    "Storage on full and read-only file systems",
    .enabled(if: SaveDirectoryFixture.canMountTmpfs, "needs root and `mount -t tmpfs`, which failed here")
)
struct StorageFileSystemLimitTests {
    @Test("Writing 2 MiB into a 1 MiB tmpfs fails with .noSpace and leaves nothing", arguments: temporaryModes)
    func noSpace(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options, tmpfsSize: "1m")
        let upload = try fixture.storage.createUpload(in: storagePath("sub"))
        let block = [UInt8](repeating: 0xA5, count: 64 << 10)
        var failure: StorageError?
        for _ in 0..<32 {
            do {
                try block.withUnsafeBytes { try upload.write($0) }
            } catch {
                failure = error as? StorageError
                break
            }
        }
        #expect(failure == .noSpace)
        upload.discard()
        #expect(try fixture.entriesOnDisk("sub").isEmpty)
        // The space is back: a small upload fits again.
        try fixture.upload(bytes("fits"), as: "small.txt", in: storagePath("sub"))
        #expect(try fixture.entriesOnDisk("sub") == ["small.txt"])
    }

    /// The check runs in `paceWriteback`, which the caller runs off its event loop whenever
    /// the upload says it is due.
    @Test("minFreeSpace stops an upload part-way once the file system runs low")
    func minFreeSpaceDuringWrite() throws {
        let options = StorageOptions(writebackChunk: 64 << 10, minFreeSpace: 512 << 10)
        let fixture = try SaveDirectoryFixture(options: options, tmpfsSize: "1m")
        let upload = try fixture.storage.createUpload(in: .root)
        let block = [UInt8](repeating: 1, count: 64 << 10)
        var written = 0
        var failure: StorageError?
        while written < 1 << 20 {
            do {
                try block.withUnsafeBytes { try upload.write($0) }
                written += block.count
                if upload.writebackDue { try upload.paceWriteback() }
            } catch {
                failure = error as? StorageError
                break
            }
        }
        #expect(failure == .noSpace)
        #expect(written >= 256 << 10 && written <= 640 << 10)
        upload.discard()
        #expect(try fixture.entriesOnDisk().isEmpty)
    }

    @Test("A read-only file system refuses uploads with .readOnly", arguments: temporaryModes)
    func readOnly(options: StorageOptions) throws {
        let fixture = try SaveDirectoryFixture(options: options, tmpfsSize: "1m")
        try fixture.upload(bytes("before"), as: "old.txt")
        try fixture.remountReadOnly()

        #expect(throws: StorageError.readOnly) { try fixture.storage.createUpload(in: .root) }
        #expect(throws: StorageError.readOnly) { try fixture.storage.createUpload(in: storagePath("new-dir")) }
        #expect(throws: StorageError.readOnly) { try fixture.storage.remove(storagePath("old.txt")) }
        // Reading still works.
        #expect(try readAll(fixture.storage.open(storagePath("old.txt"))) == bytes("before"))
        #expect(try fixture.entriesOnDisk() == ["old.txt"])
    }
}
