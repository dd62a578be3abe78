import CCrypto
import FiledropHTTP
import FiledropServer
import Glibc

/// The small CA of `tls = auto`: made once in `tls-dir`, then loaded at every start, it
/// issues the short-lived certificate the HTTPS port serves. Its certificate is what a
/// person installs once on each device (served at `/ca.crt`); its key never leaves `ca.key`.
///
/// Shared between threads: after loading, the libcrypto objects are only read.
public final class LocalCertificateAuthority: Sendable {
    /// How long a server certificate lasts unless told otherwise: a week, on purpose short
    /// (the daemon re-issues well before; a copied leaf key is soon worthless).
    public static let defaultServerLifetime: Int64 = 7 * 86_400
    /// The CA's own lifetime: ten years (3,652 days), since re-installing it on every device
    /// is the expensive part.
    static let lifetime: Int64 = 3_652 * 86_400
    /// How far back notBefore goes, for clients whose clock runs a little slow.
    static let clockSkewAllowance: Int64 = 3_600

    public let certificatePEM: [UInt8]
    public let certificateDER: [UInt8]
    /// `AB:CD:...`, as `openssl x509 -noout -fingerprint -sha256` prints it.
    public let fingerprintSHA256: String
    /// Unix seconds.
    public let notAfter: Int64
    public var keyPath: String { directory.keyPath }
    public var certificatePath: String { directory.certificatePath }

    let directory: CertificateDirectory
    /// The CA's certificate and key, to sign leaves with (`+Issue`).
    // OpenSSL 3 documents signing with a key and reading a certificate as safe from several
    // threads at once; both are set up before `init` returns and never changed after.
    private let sharedCertificate: UnsafeTransfer<X509Certificate>
    private let sharedKey: UnsafeTransfer<PrivateKey>
    var certificateAuthority: X509Certificate { sharedCertificate.wrappedValue }
    var signingKey: PrivateKey { sharedKey.wrappedValue }

    private init(directory: CertificateDirectory, certificate: X509Certificate, key: PrivateKey) throws(CertificateError) {
        self.directory = directory
        sharedCertificate = UnsafeTransfer(certificate)
        sharedKey = UnsafeTransfer(key)
        certificatePEM = try certificate.pem()
        certificateDER = try certificate.der()
        fingerprintSHA256 = try certificate.fingerprintSHA256()
        guard let notAfter = certificate.notAfter else { throw .certificateUnparsable(path: directory.certificatePath) }
        self.notAfter = notAfter
    }

    /// Loads `ca.key` and `ca.crt` from `directory`, or makes both when neither exists.
    /// Refuses (each with a sentence naming the file) a key others can read, a damaged file,
    /// a key that does not match, a certificate that is not a CA or has expired at `now`, and
    /// one file without the other. `commonName` (cut to 64 characters) names a new CA only.
    /// Blocks (file I/O, fsync): call it at start-up, not on an event loop.
    public static func loadOrCreate(
        directory path: String, commonName: String,
        now: Int64 = Clock.wallClockSeconds()
    ) throws(CertificateError) -> LocalCertificateAuthority {
        defer { LibcryptoErrorQueue.clear() }
        let directory = CertificateDirectory(path: path)
        // At every start, not only the first: systemd applies StateDirectoryMode= to an
        // existing directory too, and `create` takes the group's access away again.
        try directory.create()
        let keyFile = try directory.read(directory.keyPath)
        let certificateFile = try directory.read(directory.certificatePath)
        switch (keyFile, certificateFile) {
        case (nil, nil):
            return try create(in: directory, commonName: commonName, now: now)
        case (nil, _?):
            throw .companionMissing(missing: directory.keyPath, present: directory.certificatePath)
        case (_?, nil):
            throw .companionMissing(missing: directory.certificatePath, present: directory.keyPath)
        case (let keyFile?, let certificateFile?):
            guard keyFile.mode & 0o077 == 0 else { throw .keyOpenToOthers(path: directory.keyPath, mode: keyFile.mode) }
            guard let key = PrivateKey(pem: keyFile.bytes) else { throw .keyUnparsable(path: directory.keyPath) }
            guard let certificate = X509Certificate(pem: certificateFile.bytes) else {
                throw .certificateUnparsable(path: directory.certificatePath)
            }
            guard certificate.isCertificateAuthority else { throw .notCertificateAuthority(path: directory.certificatePath) }
            guard certificate.matches(privateKey: key) else {
                throw .keyMismatch(key: directory.keyPath, certificate: directory.certificatePath)
            }
            let authority = try LocalCertificateAuthority(directory: directory, certificate: certificate, key: key)
            guard authority.notAfter > now else { throw .expired(path: directory.certificatePath, notAfter: authority.notAfter) }
            return authority
        }
    }

    /// A new P-256 key and self-signed CA certificate, published key first. Extensions as
    /// the CA/Browser Forum baseline asks of a root: basicConstraints critical CA:TRUE with
    /// pathlen:0 (it signs leaves only), keyUsage critical keyCertSign and cRLSign, and a
    /// subjectKeyIdentifier for the leaves' authorityKeyIdentifier to point at.
    private static func create(in directory: CertificateDirectory, commonName: String, now: Int64) throws(CertificateError)
        -> LocalCertificateAuthority
    {
        let key = try PrivateKey.generateP256()
        let name = String(String.UnicodeScalarView(commonName.unicodeScalars.prefix(CertificateBuilder.commonNameLimit)))
        let builder = CertificateBuilder(
            subject: [("O", "filedrop"), ("CN", name)],
            notBefore: now - clockSkewAllowance,
            notAfter: now + lifetime,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ])
        let certificate = try builder.sign(publicKey: key, issuer: nil, issuerKey: key)
        try directory.publish(try key.pkcs8PEM(), as: directory.keyPath, mode: 0o600, replacing: false)
        try directory.publish(try certificate.pem(), as: directory.certificatePath, mode: 0o644, replacing: false)
        return try LocalCertificateAuthority(directory: directory, certificate: certificate, key: key)
    }
}
