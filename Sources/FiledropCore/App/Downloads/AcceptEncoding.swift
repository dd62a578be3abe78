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
            let end = next(UInt8(ascii: ","), in: header, from: start, to: header.count)
            let codingEnd = next(UInt8(ascii: ";"), in: header, from: start, to: end)
            let coding = trimmed(header, start, codingEnd)
            if !coding.isEmpty {
                var accepted = true
                var parameterStart = codingEnd + 1
                while parameterStart <= end {
                    let parameterEnd = next(UInt8(ascii: ";"), in: header, from: parameterStart, to: end)
                    let pair = trimmed(header, parameterStart, parameterEnd)
                    if pair.count >= 2, lowerASCII(pair[pair.startIndex]) == UInt8(ascii: "q"),
                       pair[pair.startIndex + 1] == UInt8(ascii: "=") {
                        accepted = !isZeroQValue(pair.dropFirst(2))
                    }
                    parameterStart = parameterEnd + 1
                }
                if equalsLowercase(coding, "gzip") || equalsLowercase(coding, "x-gzip") {
                    gzipWeight = (gzipWeight ?? false) || accepted
                } else if equalsLowercase(coding, "*") {
                    wildcardWeight = accepted
                }
            }
            start = end + 1
        }
        return gzipWeight ?? wildcardWeight ?? false
    }

    /// The index of the first `byte` in `bytes[from..<to]`, or `to`.
    private static func next(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from: Int, to: Int) -> Int {
        var index = from
        while index < to && bytes[index] != byte { index += 1 }
        return index
    }

    /// `bytes[from..<to]` without optional white space at either end (RFC 9110 §5.6.3).
    private static func trimmed(_ bytes: UnsafeRawBufferPointer, _ from: Int, _ to: Int) -> Slice<UnsafeRawBufferPointer> {
        var first = from, last = to
        while first < last && (bytes[first] == .space || bytes[first] == .tab) { first += 1 }
        while last > first && (bytes[last - 1] == .space || bytes[last - 1] == .tab) { last -= 1 }
        return bytes[first..<last]
    }

    private static func equalsLowercase(_ bytes: Slice<UnsafeRawBufferPointer>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        var pattern = word.utf8Start
        for byte in bytes {
            guard lowerASCII(byte) == pattern.pointee else { return false }
            pattern += 1
        }
        return true
    }

    /// RFC 9110 §12.4.2: `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`.
    /// Only zero matters here; a malformed weight counts as zero (refuse rather than guess).
    private static func isZeroQValue(_ text: Slice<UnsafeRawBufferPointer>) -> Bool {
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
