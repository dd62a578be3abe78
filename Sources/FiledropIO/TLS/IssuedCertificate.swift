/// A server certificate from `LocalCertificateAuthority`, held in memory for the daemon to
/// load into its TLS context: the chain a client is sent and the leaf's private key. The key
/// is never written to disk; a new one comes with every issue.
public struct IssuedCertificate: Sendable, CustomStringConvertible {
    /// The leaf, then the CA certificate, as PEM.
    public let certificateChainPEM: [UInt8]
    /// The leaf's ECDSA P-256 key as unencrypted PKCS#8 PEM.
    public let privateKeyPEM: [UInt8]
    /// SHA-256 of the leaf's DER, colon-separated hex (for pinning the leaf).
    public let fingerprintSHA256: String
    /// Validity in Unix seconds.
    public let notBefore: Int64
    public let notAfter: Int64
    /// The names in its subjectAltName, in the order given.
    public let dnsNames: [String]
    public let ipAddresses: [String]

    /// The names and the expiry; never the key.
    public var description: String {
        "server certificate for \((dnsNames + ipAddresses).joined(separator: ", ")) until \(notAfter) (SHA-256 \(fingerprintSHA256))"
    }
}
