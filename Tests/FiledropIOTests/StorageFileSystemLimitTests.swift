import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO
@testable import FiledropServer

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

    /// The check is the core's guarded writer: its pause, which the caller runs off its
    /// event loop whenever one is due, asks the real file system here.
    @Test("minFreeSpace stops an upload part-way once the file system runs low")
    func minFreeSpaceDuringWrite() throws {
        let fixture = try SaveDirectoryFixture(options: StorageOptions(writebackChunk: 64 << 10), tmpfsSize: "1m")
        let policy = StoragePolicy.testing(minFreeSpace: 512 << 10, spaceCheckInterval: 64 << 10)
        let upload = try fixture.storage.createUpload(in: .root)
        var writer = GuardedWriter(sink: upload, policy: policy, storage: fixture.storage, startingAt: 0, limit: policy.sizeLimit)
        let block = [UInt8](repeating: 1, count: 64 << 10)
        var written = 0
        var failure: StorageError?
        while written < 1 << 20 {
            do throws(StorageError) {
                let refusal: GuardedWriter.Refusal? = block.withUnsafeBytes { bytes in
                    do throws(GuardedWriter.Refusal) {
                        try writer.write(bytes)
                        return nil
                    } catch { return error }
                }
                if case .storage(let error)? = refusal { throw error }
                written += block.count
                if let pause = writer.pause() {
                    pause.work.run()
                    try pause.then()
                }
            } catch {
                failure = error
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
