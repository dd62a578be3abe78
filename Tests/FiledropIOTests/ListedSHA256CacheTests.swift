import CLinux
import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// The JSON listing's memory of recorded hashes: asked once per file version, never trusted
/// for a file that changed, a failure, or a file changed too recently to tell.
@Suite("ListedSHA256Cache")
struct ListedSHA256CacheTests {
    static let hex = String(repeating: "0123456789abcdef", count: 4)
    static let second: Int64 = 1_000_000_000
    static let now: Int64 = 1_800_000_000 * second

    /// A file last changed `age` before `now`.
    static func file(_ name: String, inode: UInt64, age: Int64 = 60 * second) -> FileMetadata {
        FileMetadata(name: name, kind: .file, size: 10, modified: now - age, inode: inode, changed: now - age)
    }

    /// Answers as `answers` says and counts the questions.
    final class FileSystem {
        var answers: [String: SHA256Attribute.Lookup]
        var asked: [String] = []

        init(_ answers: [String: SHA256Attribute.Lookup]) {
            self.answers = answers
        }

        func lookUp(_ name: String) -> SHA256Attribute.Lookup {
            asked.append(name)
            return answers[name] ?? .none
        }
    }

    @Test("A version is asked about once: hashes and their absence are remembered, in the files' order")
    func rememberedPerVersion() {
        let cache = ListedSHA256Cache()
        let disk = FileSystem(["a": .recorded(Self.hex)])
        let files = [Self.file("b", inode: 2), Self.file("a", inode: 1), Self.file("c", inode: 3)]
        #expect(cache.hashes(of: files, device: 1, now: Self.now, lookUp: disk.lookUp) == [nil, Self.hex, nil])
        #expect(cache.hashes(of: files, device: 1, now: Self.now, lookUp: disk.lookUp) == [nil, Self.hex, nil])
        #expect(disk.asked == ["b", "a", "c"])
    }

    @Test("A new change time, inode, size or device is a new version, asked about again")
    func everyChangeIsAskedAgain() {
        let cache = ListedSHA256Cache()
        let disk = FileSystem([:])
        let old = Self.file("a", inode: 1)
        _ = cache.hashes(of: [old], device: 1, now: Self.now, lookUp: disk.lookUp)
        disk.answers["a"] = .recorded(Self.hex)
        var attributeSet = old
        attributeSet.changed += 1
        var replaced = old
        replaced.inode = 9
        var grown = old
        grown.size += 1
        for changed in [attributeSet, replaced, grown] {
            #expect(cache.hashes(of: [changed], device: 1, now: Self.now, lookUp: disk.lookUp) == [Self.hex])
        }
        #expect(cache.hashes(of: [old], device: 2, now: Self.now, lookUp: disk.lookUp) == [Self.hex])
        #expect(disk.asked.count == 5)
    }

    @Test("A file changed in the last two seconds, or of unknown change time, is asked about every time")
    func recentChangesAreNotRemembered() {
        let cache = ListedSHA256Cache()
        let disk = FileSystem([:])
        let recent = Self.file("recent", inode: 1, age: 2 * Self.second - 1)
        let unknown = FileMetadata(name: "unknown", kind: .file, size: 0, modified: 0, inode: 2)
        for _ in 0..<2 { _ = cache.hashes(of: [recent, unknown], device: 1, now: Self.now, lookUp: disk.lookUp) }
        #expect(disk.asked == ["recent", "unknown", "recent", "unknown"])
        // Two seconds on, the same version is settled.
        for _ in 0..<2 { _ = cache.hashes(of: [recent], device: 1, now: Self.now + 1, lookUp: disk.lookUp) }
        #expect(disk.asked.count == 5)
    }

    @Test("A failed question is not an answer")
    func failuresAreAskedAgain() {
        let cache = ListedSHA256Cache()
        let disk = FileSystem(["a": .failed])
        let file = Self.file("a", inode: 1)
        #expect(cache.hashes(of: [file], device: 1, now: Self.now, lookUp: disk.lookUp) == [nil])
        disk.answers["a"] = .recorded(Self.hex)
        #expect(cache.hashes(of: [file], device: 1, now: Self.now, lookUp: disk.lookUp) == [Self.hex])
        #expect(disk.asked.count == 2)
    }

    @Test("Full, it starts over: memory stays bounded and answers stay right")
    func bounded() {
        let cache = ListedSHA256Cache(absentCapacity: 4, presentCapacity: 2)
        let disk = FileSystem([:])
        let files = (1...10).map { Self.file("f\($0)", inode: UInt64($0)) }
        for file in files { disk.answers[file.name] = file.inode % 2 == 0 ? .recorded(Self.hex) : SHA256Attribute.Lookup.none }
        let expected = files.map { $0.inode % 2 == 0 ? Self.hex : nil }
        #expect(cache.hashes(of: files, device: 1, now: Self.now, lookUp: disk.lookUp) == expected)
        #expect(cache.hashes(of: files, device: 1, now: Self.now, lookUp: disk.lookUp) == expected)
        #expect(disk.asked.count > 10 && disk.asked.count < 20, "some were remembered, not all")
    }

    @Test("On a real file system: setting the attribute moves the change time, so the new hash shows")
    func realFileSystem() throws {
        let fixture = try SaveDirectoryFixture()
        try Data("x".utf8).write(to: URL(fileURLWithPath: fixture.path + "/x.txt"))
        let value = Array(Self.hex.utf8)
        let fresh = try fixture.storage.list(.root)
        #expect(fixture.storage.recordedSHA256s(.root, files: fresh) == [nil])
        guard setxattr(fixture.path + "/x.txt", SHA256Attribute.name, value, value.count, 0) == 0 else {
            #expect(errno == ENOTSUP, "this file system keeps no user xattrs")
            return
        }
        // Changed a moment ago: nothing was remembered, so the version listed before the
        // attribute was set is read again.
        #expect(fixture.storage.recordedSHA256s(.root, files: fresh) == [Self.hex])

        #expect(removexattr(fixture.path + "/x.txt", SHA256Attribute.name) == 0)
        Thread.sleep(forTimeInterval: 2.1)
        let settled = try fixture.storage.list(.root)
        #expect(fixture.storage.recordedSHA256s(.root, files: settled) == [nil])
        #expect(setxattr(fixture.path + "/x.txt", SHA256Attribute.name, value, value.count, 0) == 0)
        #expect(fixture.storage.recordedSHA256s(.root, files: settled) == [nil], "the version listed is remembered")
        let relisted = try fixture.storage.list(.root)
        #expect(relisted[0].changed != settled[0].changed)
        #expect(fixture.storage.recordedSHA256s(.root, files: relisted) == [Self.hex])
    }
}
