import Testing

@testable import FiledropCore

/// `Accept-Encoding` (RFC 9110 §12.5.3) as far as gzip is concerned, q-values included.
@Suite struct AcceptEncodingTests {
    @Test(arguments: [
        ("gzip", true), ("GZip", true), ("x-gzip", true), ("gzip, deflate, br, zstd", true), ("br;q=1.0, gzip;q=0.8", true),
        ("gzip;q=0.001", true), ("gzip; q=1", true), ("*", true), ("*;q=0.5", true), ("identity, *;q=1", true),
        ("gzip;q=0", false), ("gzip;q=0.0", false), ("gzip;q=0.000", false), ("gzip;Q=0", false),
        ("gzip;q=0, *", false), ("*;q=0", false), ("br, deflate", false), ("identity", false), ("", false),
        // Malformed weights count as zero rather than as consent.
        ("gzip;q=abc", false), ("gzip;q=0.0000", false), ("gzip;q=", false),
    ])
    func gzip(header: String, accepted: Bool) {
        #expect(AcceptEncoding.allowsGzip(header) == accepted)
    }

    @Test func noHeaderMeansIdentity() {
        #expect(!AcceptEncoding.allowsGzip(nil))
    }
}
