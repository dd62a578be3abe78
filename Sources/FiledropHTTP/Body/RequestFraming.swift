extension BodyFraming {
    /// RFC 9112 §6.1-6.3 for requests. `closeAfterResponse` is true when both Transfer-Encoding
    /// and Content-Length were present (chunked wins, but the connection must close after the
    /// response).
    ///
    /// Strict on purpose: request smuggling lives in the gaps between lenient parsers, so any
    /// repetition of Content-Length (even `5, 5`) and any Transfer-Encoding other than exactly
    /// `chunked` is refused.
    public static func of(_ head: RequestHead) throws(HTTPError) -> (framing: BodyFraming, closeAfterResponse: Bool) {
        let hasContentLength = head.headers.contains(.contentLength)
        if head.headers.contains(.transferEncoding) {
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means the framing is faulty.
            guard head.version != .http1_0 else {
                throw .conflictingFraming("Transfer-Encoding in an HTTP/1.0 request")
            }
            try requireOnlyChunked(head.headers.values(for: .transferEncoding))
            // RFC 9112 §6.3 (3): Transfer-Encoding overrides Content-Length; the server must
            // close the connection after responding.
            return (.chunked, hasContentLength)
        }
        guard hasContentLength else { return (.none, false) }
        return (.length(try contentLength(head.headers.values(for: .contentLength))), false)
    }

    /// RFC 9112 §6.3 (4): "If a Transfer-Encoding header field is present in a request and the
    /// chunked transfer coding is not the final encoding ... respond with 400". A chunked final
    /// coding preceded by codings we do not implement (gzip, deflate...) gets 501
    /// (RFC 9112 §6.1). Chunked applied twice is forbidden (RFC 9112 §7.1) -> 400.
    private static func requireOnlyChunked(_ fieldValues: [String]) throws(HTTPError) {
        var codings: [Substring] = []
        for value in fieldValues {
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                let coding = element.trimmingOWS()
                // RFC 9110 §5.6.1: empty list elements are allowed and ignored.
                if !coding.isEmpty { codings.append(Substring(coding)) }
            }
        }
        guard let last = codings.last else {
            throw .malformedHeader("empty Transfer-Encoding")
        }
        guard last.equalsIgnoringASCIICase("chunked") else {
            throw .conflictingFraming("chunked is not the final transfer coding")
        }
        let earlier = codings.dropLast()
        if earlier.contains(where: { $0.equalsIgnoringASCIICase("chunked") }) {
            throw .conflictingFraming("chunked applied more than once")
        }
        if let other = earlier.first {
            throw .unsupportedTransferCoding(String(other))
        }
    }

    /// RFC 9110 §8.6: `Content-Length = 1*DIGIT`. One field, one value, decimal digits only,
    /// no sign or spaces, and it must fit in 64 bits.
    private static func contentLength(_ fieldValues: [String]) throws(HTTPError) -> UInt64 {
        guard fieldValues.count == 1, let value = fieldValues.first, !value.isEmpty else {
            throw .invalidContentLength
        }
        var length: UInt64 = 0
        for byte in value.utf8 {
            guard (0x30...0x39).contains(byte) else { throw .invalidContentLength }
            let (times10, overflowA) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times10.addingReportingOverflow(UInt64(byte - 0x30))
            guard !overflowA, !overflowB else { throw .invalidContentLength }
            length = sum
        }
        return length
    }
}
