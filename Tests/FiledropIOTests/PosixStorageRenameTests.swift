import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// MOVE and MKCOL on a real file system: renameat2(RENAME_NOREPLACE) never replaces, and
/// neither end of a rename, nor a new folder, is ever reached through a symlink.
@Suite struct PosixStorageRenameTests {
    static func path(_ text: String) -> StoragePath {
        StoragePath(checkedComponents: text.split(separator: "/").map(String.init))
    }

    static func write(_ text: String, _ relative: String, in fixture: SaveDirectoryFixture) throws {
        let url = URL(fileURLWithPath: fixture.path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test(arguments: [false, true])
    func movesFilesAndFolders(durable: Bool) throws {
        let fixture = try SaveDirectoryFixture()
        try Self.write("a", "a.txt", in: fixture)
        try Self.write("c", "sub/c.txt", in: fixture)
        try fixture.storage.move(Self.path("a.txt"), to: Self.path("sub/b.txt"), durable: durable)
        try fixture.storage.move(Self.path("sub"), to: Self.path("renamed"), durable: durable)
        #expect(try fixture.entriesOnDisk() == ["renamed"])
        #expect(fixture.contents("renamed/b.txt") == Array("a".utf8))
        #expect(fixture.contents("renamed/c.txt") == Array("c".utf8))
    }

    @Test func neverReplaces() throws {
        let fixture = try SaveDirectoryFixture()
        try Self.write("a", "a.txt", in: fixture)
        try Self.write("b", "b.txt", in: fixture)
        #expect(throws: StorageError.exists) {
            try fixture.storage.move(Self.path("a.txt"), to: Self.path("b.txt"), durable: false)
        }
        #expect(throws: StorageError.notFound) { try fixture.storage.move(Self.path("gone"), to: Self.path("x"), durable: false) }
        #expect(throws: StorageError.notFound) {
            try fixture.storage.move(Self.path("a.txt"), to: Self.path("no/x"), durable: false)
        }
        #expect(fixture.contents("a.txt") == Array("a".utf8) && fixture.contents("b.txt") == Array("b".utf8))
    }

    @Test func symlinksAreNeitherMovedNorFollowed() throws {
        let fixture = try SaveDirectoryFixture()
        let outside = try SaveDirectoryFixture()
        try Self.write("a", "a.txt", in: fixture)
        #expect(symlink(outside.path, fixture.path + "/out") == 0)
        #expect(symlink("/etc/hostname", fixture.path + "/host") == 0)
        #expect(throws: StorageError.notAllowed) {
            try fixture.storage.move(Self.path("a.txt"), to: Self.path("out/a.txt"), durable: false)
        }
        #expect(throws: StorageError.notAllowed) {
            try fixture.storage.move(Self.path("host"), to: Self.path("mine"), durable: false)
        }
        #expect(throws: StorageError.notAllowed) { try fixture.storage.makeDirectory(Self.path("out/new"), durable: false) }
        #expect(try outside.entriesOnDisk().isEmpty)
        #expect(try fixture.entriesOnDisk() == ["a.txt", "out", "host"])
    }

    @Test func makesOneFolder() throws {
        let fixture = try SaveDirectoryFixture()
        try Self.write("a", "a.txt", in: fixture)
        try fixture.storage.makeDirectory(Self.path("new"), durable: true)
        #expect(try fixture.storage.metadata(Self.path("new"))?.kind == .directory)
        #expect(throws: StorageError.exists) { try fixture.storage.makeDirectory(Self.path("new"), durable: false) }
        #expect(throws: StorageError.exists) { try fixture.storage.makeDirectory(Self.path("a.txt"), durable: false) }
        #expect(throws: StorageError.notFound) { try fixture.storage.makeDirectory(Self.path("no/such"), durable: false) }
        #expect(throws: StorageError.notADirectory) { try fixture.storage.makeDirectory(Self.path("a.txt/x"), durable: false) }
    }

    /// The kernel's own refusal, for a rename the app's check did not see coming (a folder
    /// renamed meanwhile): EINVAL becomes the 409 sentence, not a bare 500.
    @Test func aFolderIntoItselfIsItsOwnRefusal() throws {
        let fixture = try SaveDirectoryFixture()
        try Self.write("c", "sub/c.txt", in: fixture)
        #expect(throws: StorageError.movedIntoItself) {
            try fixture.storage.move(Self.path("sub"), to: Self.path("sub/deeper"), durable: false)
        }
        #expect(StorageError.movedIntoItself.httpError.status == .conflict)
        #expect(fixture.contents("sub/c.txt") == Array("c".utf8))
    }

    /// Root may mount here (CI runs as root); elsewhere there is no second file system to make.
    static let canMount = getuid() == 0

    /// A file system mounted inside the save directory: rename cannot cross it (EXDEV), and
    /// the client is told why instead of getting a bare 500.
    @Test(.enabled(if: canMount)) func acrossFileSystemsIsItsOwnRefusal() throws {
        let fixture = try SaveDirectoryFixture()
        try Self.write("a", "a.txt", in: fixture)
        let mountPoint = fixture.path + "/other"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        try #require(mount("none", mountPoint, "tmpfs", 0, "size=1m") == 0, "mount: errno \(errno)")
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        #expect(throws: StorageError.crossDevice) {
            try fixture.storage.move(Self.path("a.txt"), to: Self.path("other/a.txt"), durable: false)
        }
        #expect(StorageError.crossDevice.httpError.status == .badGateway)
        #expect(fixture.contents("a.txt") == Array("a".utf8))
    }

    /// The fallbacks for file systems without RENAME_NOREPLACE (NFS, bindfs), run directly
    /// here since this file system has the flag: neither ever replaces what is there.
    @Test func theFallbacksWithoutNoReplaceNeverReplace() throws {
        let fixture = try SaveDirectoryFixture()
        try Self.write("a", "a.txt", in: fixture)
        try Self.write("b", "b.txt", in: fixture)
        try Self.write("c", "sub/c.txt", in: fixture)
        try Self.write("d", "taken/d.txt", in: fixture)
        try FileManager.default.createDirectory(atPath: fixture.path + "/empty", withIntermediateDirectories: false)
        let root = open(fixture.path, O_RDONLY | O_DIRECTORY)
        defer { close(root) }

        #expect(throws: StorageError.exists) { try renameByLinking("a.txt", in: root, to: "b.txt", in: root) }
        try renameByLinking("a.txt", in: root, to: "moved.txt", in: root)
        #expect(throws: StorageError.exists) { try renameDirectoryOntoReservation("sub", in: root, to: "taken", in: root) }
        #expect(throws: StorageError.exists) { try renameDirectoryOntoReservation("sub", in: root, to: "empty", in: root) }
        #expect(throws: StorageError.exists) { try renameDirectoryOntoReservation("sub", in: root, to: "b.txt", in: root) }
        #expect(throws: StorageError.movedIntoItself) {
            try renameDirectoryOntoReservation("sub", in: root, to: "sub/deeper", in: root)
        }
        try renameDirectoryOntoReservation("sub", in: root, to: "folder", in: root)

        #expect(Set(try fixture.entriesOnDisk()) == ["moved.txt", "b.txt", "folder", "taken", "empty"])
        #expect(fixture.contents("moved.txt") == Array("a".utf8) && fixture.contents("b.txt") == Array("b".utf8))
        #expect(fixture.contents("folder/c.txt") == Array("c".utf8) && fixture.contents("taken/d.txt") == Array("d".utf8))
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "/folder/deeper"))
    }
}
