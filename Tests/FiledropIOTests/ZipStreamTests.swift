import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// Streamed ZIP archives read back by a strict reader: names, contents, methods, data
/// descriptors, CRC-32, and the ZIP64 records when counts or offsets overflow.
@Suite struct ZipStreamTests {
    static func write(_ bytes: [UInt8], _ relative: String, in fixture: SaveDirectoryFixture) throws {
        let url = URL(fileURLWithPath: fixture.path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    static func archive(
        _ directory: StoragePath = .root, selecting names: Set<String>? = nil,
        in fixture: SaveDirectoryFixture
    ) throws -> [UInt8] {
        let stream = ZlibCompressor().zipStream(of: directory, selecting: names, in: fixture.storage)
        #expect(stream.knownLength == nil)
        var bytes: [UInt8] = []
        while let chunk = try stream.nextChunk() {
            guard case .bytes(let piece) = chunk else { return [] }
            bytes += piece
        }
        return bytes
    }

    @Test func treeRoundTrips() throws {
        let fixture = try SaveDirectoryFixture()
        let text = Array((1...50_000).map { "row \($0)\n" }.joined().utf8)
        var generator = SystemRandomNumberGenerator()
        let photo = (0..<(FileRegionReader.pieceSize + 17)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Self.write(text, "notes.txt", in: fixture)
        try Self.write(photo, "album/photo.JPG", in: fixture)
        try Self.write([], "album/empty.txt", in: fixture)
        try Self.write(Array("ü".utf8), "album/deep/😀 \"q\" & <b>.md", in: fixture)
        try FileManager.default.createDirectory(atPath: fixture.path + "/nothing here", withIntermediateDirectories: true)
        // A symlink pointing out of the save directory is not part of any listing, nor the archive.
        #expect(symlink("/etc/passwd", fixture.path + "/album/link") == 0)

        let zip = try ZipReader(Self.archive(in: fixture))
        let byName = Dictionary(uniqueKeysWithValues: zip.entries.map { ($0.name, $0) })
        #expect(
            zip.entries.map(\.name) == [
                "album/", "album/deep/", "album/deep/😀 \"q\" & <b>.md", "album/empty.txt", "album/photo.JPG", "notes.txt",
                "nothing here/",
            ])
        #expect(byName["notes.txt"]?.contents == text)
        #expect(byName["notes.txt"]?.method == 8)
        #expect(byName["album/photo.JPG"]?.contents == photo)
        #expect(byName["album/photo.JPG"]?.method == 0)
        #expect(byName["album/empty.txt"]?.contents == [])
        #expect(byName["album/deep/😀 \"q\" & <b>.md"]?.contents == Array("ü".utf8))
        #expect(byName["nothing here/"]?.contents == [])
        #expect(!zip.usedZip64EndRecord)
        #expect(zip.entries.allSatisfy { !$0.usedZip64 })
    }

    /// A multi-select download: only the chosen entries of the folder, a chosen folder whole,
    /// and a same-named entry deeper down (`album/notes.txt`) stays in with its folder.
    @Test func selectionKeepsOnlyTheChosenEntries() throws {
        let fixture = try SaveDirectoryFixture()
        try Self.write(Array("a".utf8), "notes.txt", in: fixture)
        try Self.write(Array("b".utf8), "other.txt", in: fixture)
        try Self.write(Array("c".utf8), "album/notes.txt", in: fixture)
        try Self.write(Array("d".utf8), "skipped/x.txt", in: fixture)

        let zip = try ZipReader(Self.archive(selecting: ["notes.txt", "album"], in: fixture))
        #expect(zip.entries.map(\.name) == ["album/", "album/notes.txt", "notes.txt"])
        #expect(zip.entries.last?.contents == Array("a".utf8))
    }

    @Test func incompressibleUnknownTypesAreStored() throws {
        let fixture = try SaveDirectoryFixture()
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Array(String(repeating: "compressible ", count: 20_000).utf8)
        try Self.write(noise, "noise.dat", in: fixture)
        try Self.write(text, "text.dat", in: fixture)
        let zip = try ZipReader(Self.archive(in: fixture))
        #expect(zip.entries.map(\.method) == [0, 8])
        #expect(zip.entries.map(\.contents) == [noise, text])
    }

    @Test func subfolderArchiveHasRelativeNames() throws {
        let fixture = try SaveDirectoryFixture()
        try Self.write(Array("a".utf8), "outer/inner/a.txt", in: fixture)
        try Self.write(Array("b".utf8), "elsewhere.txt", in: fixture)
        let zip = try ZipReader(Self.archive(StoragePath(checkedComponents: ["outer"]), in: fixture))
        #expect(zip.entries.map(\.name) == ["inner/", "inner/a.txt"])
    }

    @Test func emptyFolderIsAValidEmptyArchive() throws {
        let fixture = try SaveDirectoryFixture()
        let bytes = try Self.archive(in: fixture)
        #expect(bytes.count == 22)
        #expect(try ZipReader(bytes).entries.isEmpty)
    }

    /// 65,535 entries is the last count the classic end record can hold (0xFFFF means
    /// "see ZIP64"), so it already needs the ZIP64 records; one fewer does not.
    @Test(arguments: [65_534, 65_535])
    func entryCountSwitchesToZip64(count: Int) {
        let end = ZipRecords.endOfCentralDirectory(entryCount: count, directorySize: 10, directoryOffset: 20)
        #expect(end.count == (count >= 65_535 ? 22 + 56 + 20 : 22))
    }

    @Test(arguments: [(0xFFFF_FFFE as UInt64, false), (0xFFFF_FFFF, true)])
    func offsetSwitchesToZip64(offset: UInt64, zip64: Bool) {
        let entry = ZipRecords.Entry(
            name: Array("x".utf8), method: .stored, flags: ZipRecords.utf8NamesFlag | ZipRecords.dataDescriptorFlag,
            modified: ZipTimestamp(nanosecondsSince1970: 0), crc: 1, compressedSize: 5, uncompressedSize: 5,
            localHeaderOffset: offset, isDirectory: false, zip64Local: false)
        let header = ZipRecords.centralDirectoryHeader(entry)
        // 46 fixed + 1 name + 9 timestamp extra, + 4 + 8 for a ZIP64 extra holding the offset only.
        #expect(header.count == (zip64 ? 46 + 1 + 9 + 12 : 46 + 1 + 9))
        let end = ZipRecords.endOfCentralDirectory(entryCount: 1, directorySize: 10, directoryOffset: offset)
        #expect(end.count == (zip64 ? 22 + 56 + 20 : 22))
    }

    @Test func bigFilesAnnounceZip64Locally() {
        let entry = ZipRecords.Entry(
            name: Array("big".utf8), method: .stored, flags: ZipRecords.utf8NamesFlag | ZipRecords.dataDescriptorFlag,
            modified: ZipTimestamp(nanosecondsSince1970: 0), crc: 7, compressedSize: 5 << 30, uncompressedSize: 5 << 30,
            localHeaderOffset: 0, isDirectory: false, zip64Local: true)
        let local = ZipRecords.localFileHeader(entry)
        #expect(Array(local[18..<26]) == Array(repeating: 0xFF, count: 8))
        let descriptor = ZipRecords.dataDescriptor(entry)
        #expect(descriptor.count == 4 + 4 + 8 + 8)
    }

    static let timestampCases: [(seconds: Int64, time: UInt16, date: UInt16)] = [
        (0, 0, 1 << 5 | 1),
        (1_700_000_001, 22 << 11 | 13 << 5 | 10, 43 << 9 | 11 << 5 | 14),
    ]

    @Test(arguments: timestampCases)
    func dosTimestamps(seconds: Int64, time: UInt16, date: UInt16) {
        // Before 1980 clamps to 1980-01-01 00:00; 2023-11-14 22:13:21 UTC rounds down to even seconds.
        let stamp = ZipTimestamp(nanosecondsSince1970: seconds * 1_000_000_000)
        #expect(stamp.dosTime == time)
        #expect(stamp.dosDate == date)
    }
}
