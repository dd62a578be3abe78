import Foundation

/// A request body that is never in memory as a whole: byte segments and file ranges read in
/// order, with its exact length known before the first byte goes out.
public struct StreamedBody: Sendable {
    /// One piece of the body.
    public enum Segment: Sendable, Equatable {
        case bytes(Data)
        /// `length` bytes of the file from `offset`.
        case file(URL, offset: Int64, length: Int64)

        var length: Int64 {
            switch self {
            case .bytes(let data): Int64(data.count)
            case .file(_, _, let length): length
            }
        }
    }

    public let segments: [Segment]
    public let contentType: String

    /// The sum of the segments: the request's Content-Length.
    public var contentLength: Int64 { segments.reduce(0) { $0 + $1.length } }

    public init(segments: [Segment], contentType: String) {
        self.segments = segments
        self.contentType = contentType
    }

    /// `multipart/form-data` with one file field (RFC 7578), as a browser's form sends it:
    /// preamble bytes, the file streamed from disk, the closing delimiter.
    ///
    /// The boundary is 128 random bits, so it cannot plausibly occur in the file (RFC 2046
    /// §5.1.1 asks that it not appear in the encapsulated data).
    public static func multipartForm(
        file: URL, size: Int64, fileName: String, fieldName: String = "file",
        boundary: String = randomBoundary()
    ) -> StreamedBody {
        // RFC 7578 §4.2 and the WHATWG form encoding: the name as UTF-8, with `"`, CR and LF
        // percent-escaped (the server undoes exactly these three).
        let preamble =
            "--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"\(escapedQuotedValue(fieldName))\"; filename=\"\(escapedQuotedValue(fileName))\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        let epilogue = "\r\n--\(boundary)--\r\n"
        return StreamedBody(
            segments: [.bytes(Data(preamble.utf8)), .file(file, offset: 0, length: size), .bytes(Data(epilogue.utf8))],
            contentType: "multipart/form-data; boundary=\(boundary)")
    }

    /// `length` bytes of `file` from `offset` as `contentType` (a raw PUT, a tus PATCH).
    public static func fileRange(_ file: URL, offset: Int64, length: Int64, contentType: String) -> StreamedBody {
        StreamedBody(segments: [.file(file, offset: offset, length: length)], contentType: contentType)
    }

    /// `filedrop-` and 32 random hex digits: a legal RFC 2046 boundary (at most 70 characters).
    public static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let bits = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }
        return "filedrop-" + bits.map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
    }

    /// Scalar by scalar (a CR LF pair is two escapes), in the standard library only:
    /// Foundation's `replacingOccurrences` pulls ICU code and data into every send.
    static func escapedQuotedValue(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A fresh stream over the whole body, for `needNewBodyStream` (which may ask again
    /// when URLSession retries the request).
    public func makeInputStream() -> InputStream {
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation reads `hasBytesAvailable` as "not at the end yet", which
            // this subclass answers exactly; a bound stream pair would end the body early.
            return MultipartBodyStream(reader: SegmentReader(segments: segments))
        #else
            // Apple's URLSession cannot schedule an InputStream subclass; a bound pair fed from
            // a thread is the supported way to stream a generated body.
            return BoundStreamPump.start(reader: SegmentReader(segments: segments))
        #endif
    }
}
