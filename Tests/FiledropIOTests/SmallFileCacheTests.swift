import CLinux
import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// The cache of small files' bytes must never send a stale copy: every way a name can come to
/// hold other bytes is tried after the bytes were cached. Names of the save directory itself
/// are trusted between changes its `DirectoryChangeWatch` reports (`TrustedNameTests`), so a
/// change made behind the storage's back is made through `changedOutside`, which waits until
/// the watch has reported it.
@Suite("SmallFileCache")
struct SmallFileCacheTests {
    /// A file older than the cache's two-second rule, opened once so that its bytes are cached.
    private func cachedFile(_ content: String, as name: String, in fixture: SaveDirectoryFixture) throws -> FileContents {
        try Data(content.utf8).write(to: URL(fileURLWithPath: fixture.path + "/" + name))
        Thread.sleep(forTimeInterval: 2.1)
        let first = try #require(try fixture.storage.open(storagePath(name)).handle as? FileContents)
        let second = try #require(try fixture.storage.open(storagePath(name)).handle as? FileContents)
        #expect(first === second, "the second open is answered from the cache")
        #expect(second.bytes == bytes(content))
        return second
    }

    @Test("A small file is served from memory, and its bytes change when the file does")
    func freshAfterEveryKindOfChange() throws {
        let fixture = try SaveDirectoryFixture()
        let original = try cachedFile("version 1", as: "note.txt", in: fixture)

        // Rewritten in place, same size, with the old modification time put back (as `cp -p`
        // or `touch -r` leave it): only the change time tells.
        try changedOutside(fixture) {
            var before = stat()
            #expect(stat(fixture.path + "/note.txt", &before) == 0)
            let handle = try #require(FileHandle(forWritingAtPath: fixture.path + "/note.txt"))
            handle.write(Data("version 2".utf8))
            try handle.close()
            var times = [before.st_atim, before.st_mtim]
            #expect(utimensat(AT_FDCWD, fixture.path + "/note.txt", &times, 0) == 0)
        }
        let rewritten = try fixture.storage.open(storagePath("note.txt"))
        #expect(try readAll(rewritten) == bytes("version 2"))
        #expect((rewritten.handle as? FileContents) !== original)

        // Replaced by another file (a new inode, as an upload publishes).
        try changedOutside(fixture) {
            try Data("version 3".utf8).write(to: URL(fileURLWithPath: fixture.path + "/other"))
            #expect(rename(fixture.path + "/other", fixture.path + "/note.txt") == 0)
        }
        #expect(try readAll(try fixture.storage.open(storagePath("note.txt"))) == bytes("version 3"))

        // Deleted.
        try changedOutside(fixture) { #expect(unlink(fixture.path + "/note.txt") == 0) }
        #expect(throws: StorageError.notFound) { try fixture.storage.open(storagePath("note.txt")) }
    }

    @Test("The recorded SHA-256 comes with the cached bytes, and a new one is seen at once")
    func hashFollowsTheAttribute() throws {
        let fixture = try SaveDirectoryFixture()
        let hex = String(repeating: "ab", count: 32)
        let value = Array(hex.utf8)
        try Data("hashed".utf8).write(to: URL(fileURLWithPath: fixture.path + "/h.txt"))
        // ext4, xfs, btrfs and tmpfs since 6.6 keep user xattrs; on another file system the
        // file has no recorded hash, and there is nothing to cache.
        guard setxattr(fixture.path + "/h.txt", SHA256Attribute.name, value, value.count, 0) == 0 else { return }
        Thread.sleep(forTimeInterval: 2.1)
        let first = try fixture.storage.open(storagePath("h.txt"))
        let cached = try fixture.storage.open(storagePath("h.txt"))
        #expect(cached.handle as? FileContents === first.handle as? FileContents, "the second open is answered from the cache")
        #expect(first.sha256 == hex)
        #expect(cached.sha256 == hex)

        let other = String(repeating: "cd", count: 32)
        try changedOutside(fixture) {
            #expect(setxattr(fixture.path + "/h.txt", SHA256Attribute.name, Array(other.utf8), 64, 0) == 0)
        }
        #expect(try fixture.storage.open(storagePath("h.txt")).sha256 == other, "setxattr moved the change time")
        try changedOutside(fixture) { #expect(removexattr(fixture.path + "/h.txt", SHA256Attribute.name) == 0) }
        #expect(try fixture.storage.open(storagePath("h.txt")).sha256 == nil)
    }

    @Test("A name turned into a symlink or a directory is refused, not served from the cache")
    func symlinkAndDirectoryAfterCaching() throws {
        let fixture = try SaveDirectoryFixture()
        _ = try cachedFile("secret-free", as: "a.txt", in: fixture)
        _ = try cachedFile("also cached", as: "b.txt", in: fixture)
        try changedOutside(fixture) {
            #expect(unlink(fixture.path + "/a.txt") == 0)
            #expect(symlink(fixture.path + "/b.txt", fixture.path + "/a.txt") == 0)
        }
        #expect(throws: StorageError.notAllowed) { try fixture.storage.open(storagePath("a.txt")) }
        try changedOutside(fixture) {
            #expect(unlink(fixture.path + "/b.txt") == 0)
            #expect(mkdir(fixture.path + "/b.txt", 0o755) == 0)
        }
        #expect(throws: StorageError.isADirectory) { try fixture.storage.open(storagePath("b.txt")) }
    }

    @Test("A file changed in the last two seconds is read every time, not remembered")
    func recentFilesAreNotCached() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.upload(bytes("just arrived"), as: "new.txt")
        let first = try #require(try fixture.storage.open(storagePath("new.txt")).handle as? FileContents)
        let second = try #require(try fixture.storage.open(storagePath("new.txt")).handle as? FileContents)
        #expect(first !== second)
        #expect(second.bytes == bytes("just arrived"))
    }

    @Test("Files over the limit are opened for sendfile; at the limit they are held in memory")
    func sizeLimit() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.upload([UInt8](repeating: 7, count: SmallFileCache.maxFileSize), as: "at-limit")
        try fixture.upload([UInt8](repeating: 7, count: SmallFileCache.maxFileSize + 1), as: "over-limit")
        #expect(try fixture.storage.open(storagePath("at-limit")).handle is FileContents)
        let over = try fixture.storage.open(storagePath("over-limit"))
        #expect(over.handle is FileDescriptor)
        #expect(try readAll(over).count == SmallFileCache.maxFileSize + 1)
    }

    @Test("Names that share a trusted slot never stand for each other: the later one takes the slot, the other is checked again")
    func trustedNamesSharingASlot() throws {
        let cache = SmallFileCache(capacity: 1)
        func file(_ name: String) -> OpenedFile {
            OpenedFile(
                handle: FileContents(Array(name.utf8)),
                metadata: FileMetadata(name: name, kind: .file, size: UInt64(name.utf8.count), modified: 0, inode: 1))
        }
        cache.trust(file("a.txt"), named: "a.txt", changes: 7, now: 0)
        #expect(cache.trusted("a.txt", changes: 7, now: 1)?.metadata.name == "a.txt")
        cache.trust(file("b.txt"), named: "b.txt", changes: 7, now: 0)
        #expect(cache.trusted("a.txt", changes: 7, now: 1) == nil, "one slot: b.txt took it")
        #expect(cache.trusted("b.txt", changes: 7, now: 1)?.metadata.name == "b.txt")
        // Canonically equal, other bytes: another file on disk.
        cache.trust(file("\u{E9}"), named: "\u{E9}", changes: 7, now: 0)
        #expect(cache.trusted("e\u{301}", changes: 7, now: 1) == nil)
        #expect(cache.trusted("\u{E9}", changes: 8, now: 1) == nil, "a change since the check")
        #expect(cache.trusted("\u{E9}", changes: 7, now: SmallFileCache.trustLimit) == nil, "past the trust limit")
    }

    @Test("A full cache drops its oldest entry first")
    func eviction() throws {
        let cache = SmallFileCache(capacity: 2)
        func file(_ inode: Int) -> stat {
            var found = stat()
            found.st_ino = UInt(inode)
            found.st_size = 1
            found.st_ctim.tv_sec = 1_000
            return found
        }
        let contents = (0..<3).map { FileContents([UInt8($0)]) }
        for inode in 0..<3 { cache.remember(contents[inode], sha256: nil, of: file(inode)) }
        #expect(cache.contents(for: file(0)) == nil)
        #expect(cache.contents(for: file(1))?.contents === contents[1])
        #expect(cache.contents(for: file(2))?.contents === contents[2])
        var changed = file(2)
        changed.st_mtim.tv_nsec = 1
        #expect(cache.contents(for: changed) == nil, "a different modification time is a miss")
    }
}

/// Makes a change behind the storage's back, then waits (5 s at most) until the save
/// directory's watch has counted it: what a request arriving after the change sees.
func changedOutside(_ fixture: SaveDirectoryFixture, _ change: () throws -> Void) throws {
    let watch = try #require(fixture.storage.rootWatch, "inotify watches the save directory")
    let before = watch.changes
    try change()
    let deadline = Date().addingTimeInterval(5)
    while watch.changes == before && Date() < deadline { usleep(1_000) }
    #expect(watch.changes != before, "the watch reported the change")
}
