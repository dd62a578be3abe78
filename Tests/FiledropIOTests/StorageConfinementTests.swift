import Foundation
import Glibc
import Testing
@testable import FiledropCore
@testable import FiledropIO

/// Nothing resolves outside the save directory: a symlink anywhere in a path is refused.
@Suite("Storage confinement")
struct StorageConfinementTests {
    @Test("A symlink to /etc inside the save directory is refused for every operation")
    func symlinkToEtc() throws {
        let fixture = try SaveDirectoryFixture()
        #expect(symlink("/etc", fixture.path + "/evil") == 0)
        let storage = fixture.storage

        #expect(throws: StorageError.notAllowed) { try storage.open(storagePath("evil", "passwd")) }
        #expect(throws: StorageError.notAllowed) { try storage.open(storagePath("evil")) }
        #expect(throws: StorageError.notAllowed) { try storage.list(storagePath("evil")) }
        #expect(throws: StorageError.notAllowed) { try storage.metadata(storagePath("evil")) }
        #expect(throws: StorageError.notAllowed) { try storage.metadata(storagePath("evil", "passwd")) }
        #expect(throws: StorageError.notAllowed) { try storage.createUpload(in: storagePath("evil")) }
        #expect(throws: StorageError.notAllowed) { try storage.remove(storagePath("evil", "passwd")) }
        #expect(throws: StorageError.notAllowed) { try storage.remove(storagePath("evil")) }
        #expect(try storage.list(.root).isEmpty)
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
    }

    @Test("Nothing is created through a symlinked directory, however deep")
    func noCreationThroughSymlink() throws {
        let fixture = try SaveDirectoryFixture()
        let outside = try SaveDirectoryFixture()
        try fixture.upload(bytes("x"), as: "x", in: storagePath("real"))
        #expect(symlink(outside.path, fixture.path + "/real/escape") == 0)

        #expect(throws: StorageError.notAllowed) { try fixture.storage.createUpload(in: storagePath("real", "escape")) }
        #expect(throws: StorageError.notAllowed) { try fixture.storage.createUpload(in: storagePath("real", "escape", "new", "dirs")) }
        #expect(try outside.entriesOnDisk().isEmpty)
    }

    @Test("A symlinked file is neither served nor listed, wherever it points")
    func symlinkedFile() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.upload(bytes("inside"), as: "real.txt")
        #expect(symlink("/etc/passwd", fixture.path + "/passwd") == 0)
        #expect(symlink("real.txt", fixture.path + "/alias.txt") == 0)

        for name in ["passwd", "alias.txt"] {
            #expect(throws: StorageError.notAllowed) { try fixture.storage.open(storagePath(name)) }
            #expect(throws: StorageError.notAllowed) { try fixture.storage.metadata(storagePath(name)) }
        }
        #expect(try fixture.storage.list(.root).map(\.name) == ["real.txt"])
    }

    @Test("A FIFO is refused without blocking the caller")
    func fifo() throws {
        let fixture = try SaveDirectoryFixture()
        #expect(mkfifo(fixture.path + "/pipe", 0o644) == 0)
        #expect(throws: StorageError.notAllowed) { try fixture.storage.open(storagePath("pipe")) }
        #expect(throws: StorageError.notAllowed) { try fixture.storage.remove(storagePath("pipe")) }
    }

    @Test("The root may itself be reached through a symlink the administrator made")
    func symlinkedRoot() throws {
        let fixture = try SaveDirectoryFixture()
        let alias = fixture.path + "-alias"
        #expect(symlink(fixture.path, alias) == 0)
        defer { unlink(alias) }
        let storage = try PosixStorage(root: alias)
        let upload = try storage.createUpload(in: .root)
        try upload.publish(as: "via-alias", replacing: false, durable: false)
        #expect(try fixture.entriesOnDisk() == ["via-alias"])
    }
}
