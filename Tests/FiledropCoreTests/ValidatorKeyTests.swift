import Testing

@testable import FiledropCore

/// The keyed hash behind every ETag: SipHash-2-4 as published, and tags that hide the inode.
@Suite struct ValidatorKeyTests {
    /// The reference key `00 01 ... 0f` of the SipHash paper's test vectors.
    static let referenceKey = ValidatorKey(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)

    @Test func matchesTheSipHashReferenceVectors() {
        #expect(Self.referenceKey.hash([]) == 0x726f_db47_dd0e_0e31)
        #expect(Self.referenceKey.hash([0x0706_0504_0302_0100]) == 0x93f5_f579_9a93_2462)
    }

    @Test(
        "A string is its bytes, eight to a little-endian word, the last padded, then its length",
        arguments: ["", "a", "1234567", "12345678", "123456789", "IMG_000001.JPG", "Grüße 😀 sixteen+ bytes"])
    func stringsAreTheirWords(text: String) {
        let bytes = Array(text.utf8)
        var words = stride(from: 0, to: bytes.count, by: 8).map { start in
            bytes[start..<min(start + 8, bytes.count)].enumerated().reduce(UInt64(0)) {
                $0 | UInt64($1.element) << UInt64(8 * $1.offset)
            }
        }
        words.append(UInt64(bytes.count))
        var hasher = ValidatorKey.Hasher(key: Self.referenceKey)
        hasher.add(text)
        #expect(hasher.finish() == Self.referenceKey.hash(words))
    }

    @Test func hexKeepsLeadingZeros() {
        #expect(ValidatorKey.hex(0x0a) == "000000000000000a")
        #expect(ValidatorKey.hex(.max) == "ffffffffffffffff")
    }

    @Test func fileETagsDependOnTheKey() {
        let metadata = FileMetadata(name: "a", kind: .file, size: 4096, modified: 1_700_000_000_123_456_789, inode: 0x1a2b)
        let other = ValidatorKey(k0: 1, k1: 2)
        #expect(FileResponse.etag(for: metadata, key: Self.referenceKey) != FileResponse.etag(for: metadata, key: other))
        #expect(FileResponse.etag(for: metadata, key: other) == FileResponse.etag(for: metadata, key: other))
    }
}
