/// The certificate authority filedrop made for itself (`tls = auto`): the certificate a
/// person installs once per device, so that the server certificates it issues are trusted.
public struct TrustAnchor: Sendable {
    /// The CA certificate, DER (what `/ca.crt` serves and the `.mobileconfig` carries).
    public var certificateDER: [UInt8]
    /// SHA-256 of `certificateDER` as uppercase hex pairs joined by colons (`AB:CD:...`),
    /// the form browsers and `openssl x509 -fingerprint -sha256` show.
    public var fingerprintSHA256: String
    /// The CA's subject common name, as devices list it among trusted certificates.
    public var commonName: String

    public init(certificateDER: [UInt8], fingerprintSHA256: String, commonName: String) {
        self.certificateDER = certificateDER
        self.fingerprintSHA256 = fingerprintSHA256
        self.commonName = commonName
    }

    /// The fingerprint's hex digits, uppercase, without the colons: 64 for SHA-256.
    var fingerprintHex: String {
        String(fingerprintSHA256.uppercased().filter(\.isHexDigit))
    }

    /// A strong validator for `/ca.crt` (RFC 9110 §8.8.3): the certificate's own hash, so it
    /// changes exactly when the CA does.
    var certificateETag: String {
        "\"ca-" + fingerprintHex.prefix(32) + "\""
    }
}
