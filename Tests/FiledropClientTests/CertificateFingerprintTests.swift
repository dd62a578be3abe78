import Testing

@testable import FiledropClient

/// Fingerprints as people paste them: `openssl x509 -fingerprint -sha256` output, plain hex
/// in either case, a `sha256:` prefix; anything else is refused, not half-read.
@Suite struct CertificateFingerprintTests {
    static let colon = "A1:27:8C:41:4E:56:4D:05:1C:9F:4A:46:76:DE:04:DF:13:6D:2C:51:95:96:AD:32:B8:1E:04:37:4C:78:AF:D4"
    static let hex = "a1278c414e564d051c9f4a4676de04df136d2c519596ad32b81e04374c78afd4"

    @Test(arguments: [colon, hex, hex.uppercased(), colon.lowercased(), "sha256:" + hex, "SHA256:" + colon, "  \(colon)\t"])
    func readsEveryCommonForm(_ text: String) throws {
        let fingerprint = try #require(CertificateFingerprint(text))
        #expect(fingerprint.description == Self.colon)
        #expect(fingerprint.hexString == Self.hex)
        #expect(fingerprint == CertificateFingerprint(Self.hex))
    }

    @Test(arguments: [
        "", "A1:27", String(hex.dropLast()), hex + "00", "g" + hex.dropFirst(),
        "A12:7" + colon.dropFirst(5), colon + ":", ":" + colon, colon.replacingOccurrences(":", "-"),
    ])
    func refusesWhatIsNotThirtyTwoBytes(_ text: String) {
        #expect(CertificateFingerprint(text) == nil)
    }

    @Test func digestsMustBeSHA256Sized() {
        #expect(CertificateFingerprint(digest: [UInt8](repeating: 1, count: 20)) == nil)
        #expect(
            CertificateFingerprint(digest: [UInt8](repeating: 0xAB, count: 32))?.description
                == Array(repeating: "AB", count: 32).joined(separator: ":"))
    }

    @Test func differentDigestsDiffer() {
        let one = CertificateFingerprint(digest: [UInt8](repeating: 1, count: 32))
        var bytes = [UInt8](repeating: 1, count: 32)
        bytes[31] = 2
        #expect(one != CertificateFingerprint(digest: bytes))
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
