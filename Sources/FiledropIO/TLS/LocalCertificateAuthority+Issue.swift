import CCrypto
import FiledropServer

extension LocalCertificateAuthority {
    /// A server certificate for every name in `dnsNames` and every IPv4/IPv6 literal in
    /// `ipAddresses` (no brackets, no zone), with a fresh P-256 key: valid from an hour before
    /// `now` (Unix seconds) for `lifetime` seconds, never past the CA's own notAfter. Subject
    /// CN is the first name that fits (browsers read only the subjectAltName). Extensions:
    /// basicConstraints CA:FALSE, keyUsage critical digitalSignature (ECDHE with ECDSA needs
    /// nothing more), extendedKeyUsage serverAuth, subject and authority key identifiers.
    /// Fast (one key, one signature, no I/O), yet not free: better off an event loop.
    public func issueServerCertificate(
        dnsNames: [String], ipAddresses: [String], now: Int64,
        lifetime: Int64 = defaultServerLifetime
    ) throws(CertificateError) -> IssuedCertificate {
        defer { LibcryptoErrorQueue.clear() }
        precondition(lifetime > 0, "a certificate's lifetime must be positive")
        let dnsNames = Self.unique(dnsNames)
        let ipAddresses = Self.unique(ipAddresses)
        precondition(!dnsNames.isEmpty || !ipAddresses.isEmpty, "a server certificate needs at least one name")
        for name in dnsNames where !Self.isDNSName(name) { throw .invalidName(name) }
        let leafKey = try PrivateKey.generateP256()
        let commonName = (dnsNames + ipAddresses).first { $0.utf8.count <= CertificateBuilder.commonNameLimit }
        let builder = CertificateBuilder(
            subject: commonName.map { [("CN", $0)] } ?? [],
            notBefore: now - Self.clockSkewAllowance,
            notAfter: min(now + lifetime, notAfter),
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ],
            dnsNames: dnsNames,
            ipAddresses: ipAddresses)
        let leaf = try builder.sign(publicKey: leafKey, issuer: certificateAuthority, issuerKey: signingKey)
        guard let leafNotAfter = leaf.notAfter else { throw LibcryptoErrorQueue.failure("read back the certificate's notAfter") }
        return IssuedCertificate(
            certificateChainPEM: try leaf.pem() + certificatePEM,
            privateKeyPEM: try leafKey.pkcs8PEM(),
            fingerprintSHA256: try leaf.fingerprintSHA256(),
            notBefore: builder.notBefore,
            notAfter: leafNotAfter,
            dnsNames: dnsNames,
            ipAddresses: ipAddresses)
    }

    /// Writes `issued`'s chain (not its key) to `server.crt`, replacing the last one, for an
    /// operator to inspect with `openssl x509`. Blocks (fsync): not on an event loop.
    public func writeServerCertificateFile(_ issued: IssuedCertificate) throws(CertificateError) {
        try directory.publish(issued.certificateChainPEM, as: directory.serverCertificatePath, mode: 0o644, replacing: true)
    }

    public var serverCertificatePath: String { directory.serverCertificatePath }

    /// Letters, digits, `-` and `_` in labels of 1-63 bytes, at most 253 bytes in all (RFC 1035
    /// §2.3.4; `_` because some hostnames have one and browsers accept it).
    static func isDNSName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { byte in
                    byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39)
                        || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                }
        }
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }
}
