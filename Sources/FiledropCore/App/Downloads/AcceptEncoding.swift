/// What an `Accept-Encoding` request header (RFC 9110 §12.5.3) says about gzip.
enum AcceptEncoding {
    /// True when the client takes `gzip` (or `x-gzip`, RFC 9110 §8.4.1.3) with a non-zero
    /// q-value, or does not name it but takes `*` with a non-zero q-value. `gzip;q=0` is a
    /// refusal that a `*` cannot override. No header means identity only: a server may
    /// guess otherwise, but curl without --compressed would then get bytes it cannot use.
    static func allowsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var gzipWeight: Bool?
        var wildcardWeight: Bool?
        for element in header.split(separator: ",") {
            let parameters = element.split(separator: ";")
            guard let coding = parameters.first?.trimmingOWS().lowercased(), !coding.isEmpty else { continue }
            var accepted = true
            for parameter in parameters.dropFirst() {
                let pair = parameter.trimmingOWS()
                if pair.lowercased().hasPrefix("q=") {
                    accepted = !isZeroQValue(pair.dropFirst(2))
                }
            }
            switch coding {
            case "gzip", "x-gzip": gzipWeight = (gzipWeight ?? false) || accepted
            case "*": wildcardWeight = accepted
            default: break
            }
        }
        return gzipWeight ?? wildcardWeight ?? false
    }

    /// RFC 9110 §12.4.2: `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`.
    /// Only zero matters here; a malformed weight counts as zero (refuse rather than guess).
    private static func isZeroQValue(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
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
