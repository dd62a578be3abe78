import Foundation

/// The certificates of a CA file, PEM (RFC 7468: `-----BEGIN CERTIFICATE-----`, base64,
/// `-----END CERTIFICATE-----`, several allowed) or a single DER certificate: what
/// `ServerTrust.certificateAuthority` accepts. Only the framing is decoded here; what the
/// bytes mean is left to the TLS stack that uses them.
enum PEMCertificates {
    /// The DER of every certificate in `data`, in order; empty when there is none.
    static func derCertificates(in data: Data) -> [Data] {
        let text = String(decoding: data, as: UTF8.self)
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        guard text.contains(begin) else {
            // DER: a SEQUENCE (0x30) is how every X.509 certificate starts (RFC 5280 §4.1).
            return data.first == 0x30 ? [data] : []
        }
        var certificates: [Data] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) {
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            if let der = Data(base64Encoded: String(body)) { certificates.append(der) }
            rest = rest[stop.upperBound...]
        }
        return certificates
    }
}
