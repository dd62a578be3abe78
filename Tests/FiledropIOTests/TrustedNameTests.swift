import CLinux
import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// A small file of the save directory, once checked, is sent again without a system call
/// while its `DirectoryChangeWatch` reports no change, for at most `SmallFileCache.trustLimit`.
@Suite("Trusted names of the save directory")
struct TrustedNameTests {
    /// Files older than the cache's two-second rule, each opened twice: the second open
    /// checks it and trusts it, for `SmallFileCache.trustLimit` from then.
    private func trustedFiles(_ files: KeyValuePairs<String, String>, in fixture: SaveDirectoryFixture) throws {
        for (name, content) in files {
            try Data(content.utf8).write(to: URL(fileURLWithPath: fixture.path + "/" + name))
        }
        Thread.sleep(forTimeInterval: 2.1)
        for (name, content) in files {
            _ = try fixture.storage.open(storagePath(name))
            #expect(try readAll(try fixture.storage.open(storagePath(name))) == bytes(content))
        }
    }

    @Test("A change inotify cannot see is seen once the trust limit has passed, and not before")
    func trustLimit() throws {
        let fixture = try SaveDirectoryFixture()
        #expect(mkdir(fixture.path + "/elsewhere", 0o755) == 0)
        // A second link in another folder: a write through it is reported to that folder's
        // watchers, not the save directory's.
        try Data("version 1".utf8).write(to: URL(fileURLWithPath: fixture.path + "/linked.txt"))
        #expect(link(fixture.path + "/linked.txt", fixture.path + "/elsewhere/other-name") == 0)
        Thread.sleep(forTimeInterval: 2.1)
        _ = try fixture.storage.open(storagePath("linked.txt"))
        let trusted = try #require(try fixture.storage.open(storagePath("linked.txt")).handle as? FileContents)
        let written = Date()
        let handle = try #require(FileHandle(forWritingAtPath: fixture.path + "/elsewhere/other-name"))
        handle.write(Data("version 2".utf8))
        try handle.close()

        let soon = try fixture.storage.open(storagePath("linked.txt"))
        if Date().timeIntervalSince(written) < 0.5 {
            #expect(soon.handle as? FileContents === trusted, "trusted: answered without a check")
        }
        Thread.sleep(forTimeInterval: Double(SmallFileCache.trustLimit) / 1e9 + 0.1)
        #expect(try readAll(try fixture.storage.open(storagePath("linked.txt"))) == bytes("version 2"))
    }

    @Test("Changes made through the storage are seen at once: a replacing upload, a tus upload, a removal, a move")
    func ownChangesAtOnce() throws {
        // Only the storage's own notes move this watch: inotify would report these changes
        // too, a moment later, and hide a missing note.
        let fixture = try SaveDirectoryFixture(seeingOnlyOwnChanges: true)
        try trustedFiles(["a.txt": "old", "b.txt": "bee", "c.txt": "sea", "d.txt": "dee"], in: fixture)
        // Each change below counts, so the next file is checked again (and trusted again at the
        // new count) before its own change.
        func checkedAgain(_ name: String) throws { _ = try fixture.storage.open(storagePath(name)) }

        try fixture.upload(bytes("new"), as: "a.txt", replacing: true)
        #expect(try readAll(try fixture.storage.open(storagePath("a.txt"))) == bytes("new"))

        try checkedAgain("b.txt")
        try fixture.storage.remove(storagePath("b.txt"))
        #expect(throws: StorageError.notFound) { try fixture.storage.open(storagePath("b.txt")) }

        // A tus upload, adopted from the partial area and published over c.txt.
        try checkedAgain("c.txt")
        let id = "0123456789abcdef0123456789abcdef"
        try fixture.storage.partialUploads.create(id: id, record: bytes("r"), durable: false)
        let partial = try fixture.storage.partialUploads.openForAppending(id: id)
        try bytes("tus").withUnsafeBytes { try partial.write($0) }
        try partial.synchronize()
        let adopted = try fixture.storage.partialUploads.adopt(id: id, into: .root, durable: false)
        try adopted.publish(as: "c.txt", replacing: true, durable: false)
        #expect(try readAll(try fixture.storage.open(storagePath("c.txt"))) == bytes("tus"))

        try fixture.storage.makeDirectory(storagePath("folder"), durable: false)
        try checkedAgain("d.txt")
        try fixture.storage.move(storagePath("d.txt"), to: storagePath("folder", "d.txt"), durable: false)
        #expect(throws: StorageError.notFound) { try fixture.storage.open(storagePath("d.txt")) }
        #expect(try readAll(try fixture.storage.open(storagePath("folder", "d.txt"))) == bytes("dee"))
    }

    @Test("Files in folders are checked on every open: a change behind the storage's back shows at once")
    func foldersAreCheckedEveryTime() throws {
        let fixture = try SaveDirectoryFixture()
        #expect(mkdir(fixture.path + "/folder", 0o755) == 0)
        try Data("version 1".utf8).write(to: URL(fileURLWithPath: fixture.path + "/folder/f.txt"))
        Thread.sleep(forTimeInterval: 2.1)
        _ = try fixture.storage.open(storagePath("folder", "f.txt"))
        _ = try fixture.storage.open(storagePath("folder", "f.txt"))
        let handle = try #require(FileHandle(forWritingAtPath: fixture.path + "/folder/f.txt"))
        handle.write(Data("version 2".utf8))
        try handle.close()
        #expect(try readAll(try fixture.storage.open(storagePath("folder", "f.txt"))) == bytes("version 2"))
    }

    @Test("Only local file systems are watched: on a network or FUSE file system another machine's changes go unreported")
    func localFileSystemsOnly() throws {
        let nfs = 0x6969
        let cifs = 0xFF53_4D42
        let ceph = 0x00C3_6400
        let fuse = 0x6573_5546
        for network in [nfs, cifs, ceph, fuse] { #expect(!DirectoryChangeWatch.localFileSystems.contains(network)) }
        for local in [0xEF53, 0x0102_1994] { #expect(DirectoryChangeWatch.localFileSystems.contains(local)) }
        let fixture = try SaveDirectoryFixture()
        var fileSystem = statfs()
        #expect(statfs(fixture.path, &fileSystem) == 0)
        #expect((fixture.storage.rootWatch != nil) == DirectoryChangeWatch.localFileSystems.contains(Int(fileSystem.f_type)))
        if SaveDirectoryFixture.canMountTmpfs {
            #expect(try SaveDirectoryFixture(tmpfsSize: "1m").storage.rootWatch != nil, "tmpfs is watched")
        }
        let proc = FileDescriptor(owning: open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        #expect(DirectoryChangeWatch(directory: proc) == nil, "procfs is not a local file system of files")
    }

    /// Half the per-user inotify instances (128 by default), made and dropped one after another:
    /// a watch that kept its descriptors would leave them all open. Half, not more than the
    /// limit: the other tests, running at the same time, need instances of their own, and a
    /// save directory without one goes unwatched.
    @Test("A watch's thread and descriptors end with it: 64 watches made and dropped leave no inotify instance behind")
    func watchesEnd() throws {
        func inotifyInstances() -> Int {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return entries.filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == "anon_inode:inotify"
            }.count
        }
        let directory = FileDescriptor(owning: open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        let made = 64
        for _ in 0..<made {
            let watch = DirectoryChangeWatch(directory: directory)
            #expect(watch != nil)
            guard watch != nil else { return }
        }
        // The last watches' threads close their descriptors soon after they are dropped.
        let deadline = Date().addingTimeInterval(5)
        while inotifyInstances() >= made / 2 && Date() < deadline { usleep(10_000) }
        #expect(inotifyInstances() < made / 2, "the dropped watches' inotify descriptors were closed")
    }
}
