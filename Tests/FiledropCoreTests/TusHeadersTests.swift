import Testing

@testable import FiledropCore

@Suite struct TusHeadersTests {
    // RFC 4648 §10 test vectors.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test func base64MatchesRFC4648Vectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.encode(plain.utf8) == encoded)
            #expect(Base64.decode(Substring(encoded)) == Array(plain.utf8))
        }
    }

    @Test(arguments: ["Zg", "Zg=", "Zh==", "Zm9=", "Z===", "Zm9v!A==", "====", "Zg==Zg=="])
    func base64RefusesNonCanonicalText(text: String) {
        #expect(Base64.decode(Substring(text)) == nil)
    }

    @Test func base64RoundTripsEveryByte() {
        let bytes = (0...255).map { UInt8($0) }
        for length in 0...bytes.count {
            #expect(Base64.decode(Substring(Base64.encode(bytes.prefix(length)))) == Array(bytes.prefix(length)))
        }
    }

    @Test func metadataOfTheProtocolExample() throws {
        let header = "filename d29ybGRfZG9taW5hdGlvbl9wbGFuLnBkZg==,is_confidential"
        let metadata = try UploadMetadata(parsing: header)
        #expect(metadata.text("filename") == "world_domination_plan.pdf")
        #expect(metadata.values["is_confidential"] == [])
        #expect(metadata.raw == header)
    }

    @Test(arguments: ["filename a", "a Zg==,a Zg==", "a Zg==,", "key Zg== extra", "ke\u{7}y Zg=="])
    func metadataRefusesMalformedPairs(header: String) {
        #expect(throws: TusError.self) { try UploadMetadata(parsing: header) }
    }

    @Test func checksumHeader() throws {
        let checksum = try UploadChecksum(parsing: "sha1 Kq5sNclPz7QV2+lfQIuc6R7oRu0=")
        #expect(checksum.algorithm == "sha1")
        #expect(checksum.digest.count == 20)
        #expect(throws: TusError.self) { try UploadChecksum(parsing: "sha1") }
        #expect(throws: TusError.self) { try UploadChecksum(parsing: "sha1 not-base64") }
    }

    @Test func recordRoundTripsAwkwardNames() {
        let record = TusRecord(
            length: 42, name: "file\n1 😀.txt", directory: ["a b", "ü"], metadata: "filename Zg==",
            client: "::1", created: 1_700_000_000)
        #expect(TusRecord(decoding: record.encoded()) == record)
        var deferred = record
        deferred.length = nil
        #expect(TusRecord(decoding: deferred.encoded()) == deferred)
    }

    @Test func recordRefusesDamagedFiles() {
        let good = TusRecord(length: 1, name: "a", directory: [], metadata: "", client: "c", created: 0).encoded()
        #expect(TusRecord(decoding: Array(good.prefix(good.count / 2))) == nil)
        #expect(TusRecord(decoding: Array("format=2\n".utf8)) == nil)
        #expect(TusRecord(decoding: [0xFF, 0xFE]) == nil)
    }

    @Test func idsAre128RandomBitsInHex() {
        let ids = (0..<100).map { _ in UnguessableID.random() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { UnguessableID.isWellFormed($0) })
        #expect(!UnguessableID.isWellFormed("../../etc/passwd"))
        #expect(!UnguessableID.isWellFormed(String(repeating: "A", count: 32)))
    }
}
