import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO
@testable import FiledropServer
@testable import FiledropTesting

/// Awkward names that must survive the round trip byte for byte.
let awkwardNames = ["file\n1.txt", "😀.bin", "quote\"d 'name'.txt", "a%20b.txt", "  spaced out  ", "tab\there", "Ünïcödé.txt"]

@Suite("PosixStorage")
struct PosixStorageTests {
    @Test("A published file reads back with the same bytes, size and CRC", arguments: awkwardNames)
    func roundTrip(name: String) throws {
        let fixture = try SaveDirectoryFixture()
        let content = bytes("hello \(name)\n")
        let upload = try fixture.upload(content, as: name)
        #expect(upload.bytesWritten == UInt64(content.count))
        #expect(upload.crc32 == CRC32.checksum(content))

        let opened = try fixture.storage.open(storagePath(name))
        #expect(try readAll(opened) == content)
        #expect(opened.metadata.name == name)
        #expect(opened.metadata.kind == .file)
        #expect(opened.metadata.size == UInt64(content.count))
        #expect(fixture.contents(name) == content)
        #expect(try fixture.storage.list(.root).map(\.name) == [name])
    }

    @Test("Metadata carries size, inode, mtime and ctime in nanoseconds as stat sees them")
    func metadataMatchesStat() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.upload(bytes("12345"), as: "five")
        var expected = stat()
        #expect(stat(fixture.path + "/five", &expected) == 0)
        let metadata = try #require(try fixture.storage.metadata(storagePath("five")))
        #expect(
            metadata
                == FileMetadata(
                    name: "five", kind: .file, size: 5,
                    modified: Int64(expected.st_mtim.tv_sec) * 1_000_000_000 + Int64(expected.st_mtim.tv_nsec),
                    inode: UInt64(expected.st_ino),
                    changed: Int64(expected.st_ctim.tv_sec) * 1_000_000_000 + Int64(expected.st_ctim.tv_nsec)))
        #expect(try fixture.storage.metadata(.root)?.kind == .directory)
        #expect(try fixture.storage.metadata(storagePath("missing")) == nil)
        #expect(try fixture.storage.metadata(storagePath("missing", "deeper")) == nil)
        #expect(try fixture.storage.metadata(storagePath("five", "below-a-file")) == nil)
    }

    @Test("createUpload makes the missing directory chain")
    func nestedDirectories() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.upload(bytes("deep"), as: "x.txt", in: storagePath("a", "b b", "😀"))
        #expect(fixture.contents("a/b b/😀/x.txt") == bytes("deep"))
        #expect(try fixture.storage.list(storagePath("a")).map(\.name) == ["b b"])
        #expect(try fixture.storage.list(storagePath("a")).map(\.kind) == [.directory])
        // Making an existing chain again is fine.
        try fixture.upload(bytes("again"), as: "y.txt", in: storagePath("a", "b b", "😀"))
        #expect(try fixture.entriesOnDisk("a/b b/😀") == ["x.txt", "y.txt"])
    }

    @Test("A directory component that is a file is .notADirectory")
    func fileInTheWay() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.upload(bytes("x"), as: "plain")
        #expect(throws: StorageError.notADirectory) { try fixture.storage.createUpload(in: storagePath("plain", "sub")) }
        #expect(throws: StorageError.notADirectory) { try fixture.storage.list(storagePath("plain")) }
    }

    @Test("list shows files and directories only, never our temporaries or state")
    func listFilters() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.upload(bytes("abc"), as: "file.txt")
        #expect(mkdir(fixture.path + "/dir", 0o755) == 0)
        #expect(mkfifo(fixture.path + "/fifo", 0o644) == 0)
        #expect(symlink("file.txt", fixture.path + "/link") == 0)
        #expect(
            FileManager.default.createFile(atPath: fixture.path + "/.filedrop-tmp-0123456789abcdef", contents: Data("x".utf8)))
        #expect(FileManager.default.createFile(atPath: fixture.path + "/.filedrop-state", contents: Data("x".utf8)))
        #expect(FileManager.default.createFile(atPath: fixture.path + "/.hidden-by-user", contents: Data("x".utf8)))
        let pending = try fixture.storage.createUpload(in: .root)
        defer { pending.discard() }

        let listed = try fixture.storage.list(.root).sorted { $0.name < $1.name }
        #expect(listed.map(\.name) == [".hidden-by-user", "dir", "file.txt"])
        #expect(listed.map(\.kind) == [.file, .directory, .file])
        #expect(listed[2].size == 3)
    }

    @Test("open refuses directories and missing files")
    func openErrors() throws {
        let fixture = try SaveDirectoryFixture()
        #expect(mkdir(fixture.path + "/dir", 0o755) == 0)
        #expect(throws: StorageError.isADirectory) { try fixture.storage.open(storagePath("dir")) }
        #expect(throws: StorageError.isADirectory) { try fixture.storage.open(.root) }
        #expect(throws: StorageError.notFound) { try fixture.storage.open(storagePath("nope")) }
        #expect(throws: StorageError.notFound) { try fixture.storage.open(storagePath("nope", "deeper")) }
        #expect(throws: StorageError.notFound) { try fixture.storage.list(storagePath("nope")) }
    }

    @Test("Reserved and non-plain names are refused even inside a StoragePath")
    func reservedNames() throws {
        let fixture = try SaveDirectoryFixture()
        #expect(
            FileManager.default.createFile(atPath: fixture.path + "/.filedrop-tmp-0000000000000001", contents: Data("x".utf8)))
        for name in [".filedrop-tmp-0000000000000001", "..", ".", "a/b", ""] {
            #expect(throws: StorageError.notAllowed) { try fixture.storage.open(storagePath(name)) }
            #expect(throws: StorageError.notAllowed) { try fixture.storage.createUpload(in: storagePath(name)) }
            #expect(throws: StorageError.notAllowed) { try fixture.storage.remove(storagePath(name)) }
        }
    }

    @Test("remove deletes files and empty directories, not full ones")
    func remove() throws {
        let fixture = try SaveDirectoryFixture()
        try fixture.upload(bytes("x"), as: "inner.txt", in: storagePath("full"))
        #expect(mkdir(fixture.path + "/empty", 0o755) == 0)
        try fixture.upload(bytes("x"), as: "top.txt")

        #expect(throws: StorageError.notEmpty) { try fixture.storage.remove(storagePath("full")) }
        try fixture.storage.remove(storagePath("empty"))
        try fixture.storage.remove(storagePath("top.txt"))
        try fixture.storage.remove(storagePath("full", "inner.txt"))
        try fixture.storage.remove(storagePath("full"))
        #expect(try fixture.entriesOnDisk().isEmpty)
        #expect(throws: StorageError.notFound) { try fixture.storage.remove(storagePath("top.txt")) }
        #expect(throws: StorageError.notAllowed) { try fixture.storage.remove(.root) }
    }

    @Test("The save directory is created with mode 0755 when missing")
    func createsRoot() throws {
        let fixture = try SaveDirectoryFixture()
        let inner = fixture.path + "/new-root"
        let previous = umask(0o022)
        defer { umask(previous) }
        let storage = try PosixStorage(root: inner)
        var status = stat()
        #expect(stat(inner, &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o755)
        #expect(try storage.list(.root).isEmpty)
        #expect(throws: SystemError.self) { try PosixStorage(root: fixture.path + "/no/such/parent") }
    }

    @Test("availableSpace reports the file system's free bytes")
    func availableSpace() throws {
        let fixture = try SaveDirectoryFixture()
        var expected = statvfs()
        #expect(statvfs(fixture.path, &expected) == 0)
        let free = try #require(fixture.storage.availableSpace())
        let statvfsFree = UInt64(expected.f_bavail) * UInt64(expected.f_frsize)
        // Other processes write meanwhile: the same to within 64 MiB.
        #expect(free > 0)
        #expect(max(free, statvfsFree) - min(free, statvfsFree) < 64 << 20)
    }

    /// The rule is the core's `StoragePolicy`; this runs it against the real file system.
    @Test("Uploads are refused when less than minFreeSpace is free")
    func minFreeSpace() throws {
        let fixture = try SaveDirectoryFixture()
        let store = UploadStore(
            storage: fixture.storage, policy: .testing(minFreeSpace: .max), monitor: UploadMonitor(log: NoLog(), now: { 0 }))
        let plan = try store.plan(
            directory: .root, clientName: "a.bin", expectedSize: nil, client: "test", checksummed: false, method: .put)
        guard case .failure(let refusal) = plan.open() else {
            Issue.record("opened below minFreeSpace")
            return
        }
        #expect(refusal.status == .insufficientStorage)
        #expect(try fixture.entriesOnDisk().isEmpty)
    }

    @Test("Concurrent uploads, lists and opens from many threads do not interfere")
    func concurrentUse() async throws {
        let fixture = try SaveDirectoryFixture()
        let storage = fixture.storage
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let content = Array(repeating: UInt8(index), count: 10_000 + index)
                    let upload = try storage.createUpload(in: storagePath("shared", "dir"))
                    try content.withUnsafeBytes { try upload.write($0) }
                    try upload.publish(as: "file-\(index)", replacing: false, durable: false)
                    _ = try storage.list(.root)
                    #expect(try readAll(storage.open(storagePath("shared", "dir", "file-\(index)"))) == content)
                }
            }
            try await group.waitForAll()
        }
        #expect(try storage.list(storagePath("shared", "dir")).count == 16)
    }
}
