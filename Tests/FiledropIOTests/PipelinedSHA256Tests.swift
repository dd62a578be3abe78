import CCrypto
import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO
@testable import FiledropTesting

/// The hashing pipeline gives libcrypto's one-shot SHA-256 whatever the sizes and splits
/// (chunk boundaries, a writer that pauses for it, uploads at once), and the xattr keeps it
/// with the file through publishing.
@Suite struct PipelinedSHA256Tests {
    static let hashing = PipelinedSHA256()
    static let chunk = PipelinedSHA256Stream.chunkSize

    /// Through EVP, not `LibcryptoSHA256`: the reference is libcrypto's other road.
    static func oneShot(_ bytes: [UInt8]) throws -> [UInt8] {
        let digest = try #require(EVPDigest(EVP_sha256()))
        bytes.withUnsafeBytes { digest.update($0) }
        return digest.finish()
    }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(state: seed | 1)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    @Test func knownVector() {
        // FIPS 180-2 appendix B.1: SHA-256("abc").
        let stream = Self.hashing.makeStream()
        Array("abc".utf8).withUnsafeBytes { stream.feed($0) }
        #expect(SHA256Text.hex(stream.finish()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test(arguments: [0, 1, chunk - 1, chunk, chunk + 1, 9 * chunk + 12_345])
    func equalsTheOneShotHashWhateverTheSplit(size: Int) throws {
        let content = Self.bytes(size, seed: UInt64(size))
        for piece in [size + 1, 65_536, 100_003] {
            let stream = Self.hashing.makeStream()
            var offset = 0
            while offset < content.count {
                let end = min(content.count, offset + piece)
                content[offset..<end].withUnsafeBytes { stream.feed($0) }
                offset = end
                // What the writer does: pause on a worker once the hasher is behind.
                if stream.isBehind { stream.waitUntilCaughtUp() }
                #expect(!stream.isBehind)
            }
            #expect(stream.bytesFed == UInt64(size))
            #expect(stream.finish() == (try Self.oneShot(content)), "size \(size), pieces of \(piece)")
        }
    }

    /// A tus upload between PATCHes: settled after each, fed again by the next.
    @Test func settlingBetweenRequestsKeepsTheHash() throws {
        let content = Self.bytes(3 * Self.chunk + 777, seed: 5)
        let stream = Self.hashing.makeStream()
        for cut in [(0, 1000), (1000, Self.chunk + 3), (Self.chunk + 3, content.count)] {
            content[cut.0..<cut.1].withUnsafeBytes { stream.feed($0) }
            stream.settle()
        }
        #expect(stream.finish() == (try Self.oneShot(content)))
    }

    @Test func aFasterWriterIsHeldAtTheBound() {
        let stream = Self.hashing.makeStream()
        let piece = [UInt8](repeating: 7, count: Self.chunk)
        var fed = 0
        // Without waiting, the queue grows until the stream says it is behind.
        while !stream.isBehind && fed < 1000 {
            piece.withUnsafeBytes { stream.feed($0) }
            fed += 1
        }
        #expect(fed < 1000, "the bound was reached")
        stream.waitUntilCaughtUp()
        #expect(!stream.isBehind)
        _ = stream.finish()
    }

    @Test func uploadsAtOnceKeepTheirOwnHashes() async throws {
        let contents = (0..<6).map { Self.bytes(3 * Self.chunk + $0 * 1000, seed: UInt64($0) + 100) }
        let results = await withTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, content) in contents.enumerated() {
                group.addTask {
                    let stream = Self.hashing.makeStream()
                    for start in stride(from: 0, to: content.count, by: 50_000) {
                        content[start..<min(content.count, start + 50_000)].withUnsafeBytes { stream.feed($0) }
                        if stream.isBehind { stream.waitUntilCaughtUp() }
                    }
                    return (index, stream.finish())
                }
            }
            var all: [Int: [UInt8]] = [:]
            for await (index, digest) in group { all[index] = digest }
            return all
        }
        for (index, content) in contents.enumerated() {
            #expect(results[index] == (try Self.oneShot(content)))
        }
    }

    @Test func theXattrTravelsWithThePublishedFile() throws {
        let fixture = try SaveDirectoryFixture()
        let upload = try fixture.storage.createUpload(in: .root)
        let hex = SHA256Text.hex(try Self.oneShot(Array("x".utf8)))
        try Array("x".utf8).withUnsafeBytes { try upload.write($0) }
        upload.recordSHA256(hex)
        try upload.publish(as: "x.txt", replacing: false, durable: false)
        #expect(fixture.storage.recordedSHA256(StoragePath(checkedComponents: ["x.txt"])) == hex)
        let missing = FileMetadata(name: "none.txt", kind: .file, size: 0, modified: 0, inode: 0)
        #expect(fixture.storage.recordedSHA256s(.root, files: try fixture.storage.list(.root) + [missing]) == [hex, nil])
        #expect(try fixture.storage.open(StoragePath(checkedComponents: ["x.txt"])).sha256 == hex)
        try fixture.upload(Array("y".utf8), as: "y.txt")
        #expect(fixture.storage.recordedSHA256(StoragePath(checkedComponents: ["y.txt"])) == nil, "none recorded")
    }

    @Test func aPartialFileIsHashedByReadingIt() throws {
        let fixture = try SaveDirectoryFixture()
        let area = fixture.storage.partialUploads
        let id = "0123456789abcdef0123456789abcdef"
        try area.create(id: id, record: Array("r".utf8), durable: false)
        let content = Self.bytes(2 * Self.chunk + 5, seed: 9)
        let file = try area.openForAppending(id: id)
        try content.withUnsafeBytes { try file.write($0) }
        #expect(try area.sha256(id: id) == (try Self.oneShot(content)))
    }
}
