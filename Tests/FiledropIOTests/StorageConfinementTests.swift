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
        #expect(try storage.list(.root).isEmpty)
    }

    /// Against a decoy directory, never /etc: should confinement ever break, this test must
    /// not be the thing that deletes a real system file.
    @Test("remove never reaches through a symlink")
    func removeThroughSymlink() throws {
        let fixture = try SaveDirectoryFixture()
        let decoy = try SaveDirectoryFixture()
        #expect(FileManager.default.createFile(atPath: decoy.path + "/victim.txt", contents: Data("keep".utf8)))
        #expect(symlink(decoy.path, fixture.path + "/evil") == 0)
        #expect(throws: StorageError.notAllowed) { try fixture.storage.remove(storagePath("evil", "victim.txt")) }
        #expect(throws: StorageError.notAllowed) { try fixture.storage.remove(storagePath("evil")) }
        #expect(try decoy.entriesOnDisk() == ["victim.txt"])
        #expect(try fixture.entriesOnDisk() == ["evil"])
    }

    @Test("Nothing is created through a symlinked directory, however deep")
    func noCreationThroughSymlink() throws {
        let fixture = try SaveDirectoryFixture()
        let outside = try SaveDirectoryFixture()
        try fixture.upload(bytes("x"), as: "x", in: storagePath("real"))
        #expect(symlink(outside.path, fixture.path + "/real/escape") == 0)

        #expect(throws: StorageError.notAllowed) { try fixture.storage.createUpload(in: storagePath("real", "escape")) }
        #expect(throws: StorageError.notAllowed) {
            try fixture.storage.createUpload(in: storagePath("real", "escape", "new", "dirs"))
        }
        #expect(try outside.entriesOnDisk().isEmpty)
    }

    @Test("A dangling symlink is not replaced by a directory, nor followed to create one")
    func danglingSymlink() throws {
        let fixture = try SaveDirectoryFixture()
        let outside = try SaveDirectoryFixture()
        #expect(symlink(outside.path + "/would-be-made", fixture.path + "/dangling") == 0)
        #expect(throws: StorageError.notAllowed) { try fixture.storage.createUpload(in: storagePath("dangling")) }
        #expect(throws: StorageError.notAllowed) { try fixture.storage.list(storagePath("dangling")) }
        #expect(try outside.entriesOnDisk().isEmpty)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: fixture.path + "/dangling") == outside.path
                + "/would-be-made")
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
