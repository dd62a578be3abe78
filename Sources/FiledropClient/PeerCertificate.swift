/// One certificate a server presented, with its SHA-256: computed by whoever read it off
/// the connection (libcrypto in the `filedrop` command, CryptoKit on Apple platforms), since
/// this library hashes nothing itself.
public struct PeerCertificate: Sendable, Equatable {
    /// The DER encoding (RFC 5280 §4.1).
    public var der: [UInt8]
    public var fingerprint: CertificateFingerprint
    /// The subject, for people (`CN=filedrop CA on laptop`).
    public var subject: String

    public init(der: [UInt8], fingerprint: CertificateFingerprint, subject: String) {
        self.der = der
        self.fingerprint = fingerprint
        self.subject = subject
    }
}
