import FiledropHTTP

/// What an `Accept-Encoding` request header (RFC 9110 §12.5.3) says about gzip.
enum AcceptEncoding {
    /// True when the client takes `gzip` (or `x-gzip`, RFC 9110 §8.4.1.3) with a non-zero
    /// q-value, or does not name it but takes `*` with a non-zero q-value. `gzip;q=0` is a
    /// refusal that a `*` cannot override. No header means identity only: a server may
    /// guess otherwise, but curl without --compressed would then get bytes it cannot use.
    static func allowsGzip(_ header: String?) -> Bool {
        header.map { $0.withUTF8Bytes(allowsGzip) } ?? false
    }

    /// `allowsGzip` on the field value's bytes, as `HTTPHeaders.withValueBytes` hands them
    /// over: every browser request asks, and the value is a short list.
    static func allowsGzip(_ header: UnsafeRawBufferPointer) -> Bool {
        var gzipWeight: Bool?
        var wildcardWeight: Bool?
        var start = 0
        while start < header.count {
            let end = ByteScan.firstIndex(of: UInt8(ascii: ","), in: header, from: start, to: header.count)
            let codingEnd = ByteScan.firstIndex(of: UInt8(ascii: ";"), in: header, from: start, to: end)
            let coding = trimmed(header, start, codingEnd)
            if !coding.isEmpty {
                var accepted = true
                var parameterStart = codingEnd + 1
                while parameterStart <= end {
                    let parameterEnd = ByteScan.firstIndex(of: UInt8(ascii: ";"), in: header, from: parameterStart, to: end)
                    let pair = trimmed(header, parameterStart, parameterEnd)
                    if pair.hasPrefixIgnoringASCIICase("q=") { accepted = !isZeroQValue(pair.dropFirst(2)) }
                    parameterStart = parameterEnd + 1
                }
                if coding.equalsIgnoringASCIICase("gzip") || coding.equalsIgnoringASCIICase("x-gzip") {
                    gzipWeight = (gzipWeight ?? false) || accepted
                } else if coding.equalsIgnoringASCIICase("*") {
                    wildcardWeight = accepted
                }
            }
            start = end + 1
        }
        return gzipWeight ?? wildcardWeight ?? false
    }

    /// `bytes[from..<to]` without optional white space at either end, as bytes the media-type
    /// comparisons (`equalsIgnoringASCIICase`, `hasPrefixIgnoringASCIICase`) take.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer, _ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(
            rebasing: bytes.assumingMemoryBound(to: UInt8.self)[ByteScan.trimmingOWS(in: bytes, from: from, to: to)])
    }

    /// RFC 9110 §12.4.2: `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`.
    /// Only zero matters here; a malformed weight counts as zero (refuse rather than guess).
    private static func isZeroQValue(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let bytes = Array(text)
        guard let first = bytes.first else { return true }
        if first == UInt8(ascii: "1") { return false }
        guard first == UInt8(ascii: "0") else { return true }
        if bytes.count == 1 { return true }
        guard bytes[1] == UInt8(ascii: "."), bytes.count <= 5 else { return true }
        let digits = bytes.dropFirst(2)
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return true }
        return digits.allSatisfy { $0 == UInt8(ascii: "0") }
    }
}
