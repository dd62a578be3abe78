import CSSL
import FiledropHTTP
import Glibc

/// A certificate chain and its private key, as PEM bytes, with where each came from (for
/// error messages): files for `tls = files`, the local CA's issue for `tls = auto`.
public struct TLSCredentials: Sendable {
    public var certificateChainPEM: [UInt8]
    public var privateKeyPEM: [UInt8]
    public var certificateSource: String
    public var keySource: String

    public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], certificateSource: String, keySource: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateSource = certificateSource
        self.keySource = keySource
    }
}

/// One OpenSSL `SSL_CTX`: the server's certificate and key with Mozilla's "intermediate"
/// profile (TLS 1.2 and 1.3, AEAD ciphers with forward secrecy only), ALPN `http/1.1`, and a
/// server-side session cache so a phone reconnecting resumes instead of paying a full
/// handshake. Immutable once made and shared by every loop (OpenSSL locks what SSL_new
/// touches); a renewed certificate is a new context, and connections keep the one they
/// started with until they close.
public final class TLSContext: Sendable {
    // OpenSSL documents an SSL_CTX as safe to share between threads once set up, which this
    // one is before `init` returns; nothing changes it after.
    private let sharedContext: UnsafeTransfer<OpaquePointer>
    var context: OpaquePointer { sharedContext.wrappedValue }
    /// Whether OpenSSL was asked to hand the record layer to the kernel (the `tls` ULP).
    public let kernelTLSRequested: Bool
    /// The leaf certificate's SHA-256 fingerprint, `AB:CD:...`.
    public let fingerprintSHA256: String

    /// TLS 1.2 suites of the intermediate profile (ECDHE only: no DH parameters to manage).
    static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
    /// AES-128-GCM first: as safe as the others, and the fastest with AES-NI.
    static let tls13Suites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
    static let groups = "X25519:prime256v1:secp384r1"
    /// Sessions kept for resumption (about 1 KiB each) and for how long (Mozilla: one day).
    static let sessionCacheSize = 20_000
    static let sessionTimeoutSeconds = 86_400
    /// OpenSSL's read buffer: four full records and their headers.
    static let readBufferSize = 4 * (16 * 1024 + 256)

    public init(credentials: TLSCredentials, kernelTLS: Bool) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError.openSSL("SSL_CTX_new", detail: LibcryptoErrorQueue.takeReason())
        }
        sharedContext = UnsafeTransfer(context)
        kernelTLSRequested = kernelTLS
        filedrop_ssl_ctx_set_server_options(context, kernelTLS ? 1 : 0)
        guard filedrop_ssl_ctx_set_min_tls12(context) == 1,
            SSL_CTX_set_cipher_list(context, Self.tls12Ciphers) == 1,
            SSL_CTX_set_ciphersuites(context, Self.tls13Suites) == 1,
            filedrop_ssl_ctx_set_groups(context, Self.groups) == 1
        else {
            SSL_CTX_free(context)
            throw TLSError.openSSL("configuring the TLS protocols", detail: LibcryptoErrorQueue.takeReason())
        }
        // Partial writes and a moving buffer: the writer re-offers what is left of a segment,
        // from wherever it now lives. Buffers are released while a connection is idle, so a
        // thousand kept-alive connections do not hold 34 KiB each.
        _ = filedrop_ssl_ctx_set_mode(
            context,
            Int(
                SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                    | SSL_MODE_RELEASE_BUFFERS))
        // Read what the socket has, up to four records per read, not one record header then
        // its body. The buffer exists only while a connection is busy (RELEASE_BUFFERS).
        filedrop_ssl_ctx_set_read_ahead(context, 1)
        SSL_CTX_set_default_read_buffer_len(context, Self.readBufferSize)
        _ = filedrop_ssl_ctx_set_session_cache(context, Int(SSL_SESS_CACHE_SERVER), Self.sessionCacheSize)
        _ = SSL_CTX_set_timeout(context, Int(Self.sessionTimeoutSeconds))
        _ = SSL_CTX_set_num_tickets(context, 1)
        let sessionContext = Array("filedrop".utf8)
        _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        SSL_CTX_set_alpn_select_cb(context, selectHTTP11, nil)
        do {
            fingerprintSHA256 = try Self.useCredentials(credentials, in: context)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// Loads the chain (leaf first) and key, and checks they belong together.
    private static func useCredentials(_ credentials: TLSCredentials, in context: OpaquePointer) throws(TLSError) -> String {
        let certificates = readCertificates(credentials.certificateChainPEM)
        guard let leaf = certificates.first else { throw .noCertificate(credentials.certificateSource) }
        // Both calls take references of their own; `certificates` frees ours.
        guard SSL_CTX_use_certificate(context, leaf.pointer) == 1,
            certificates.dropFirst().allSatisfy({ filedrop_ssl_ctx_add_chain_certificate(context, $0.pointer) == 1 })
        else {
            throw .unusableCertificate(credentials.certificateSource, detail: LibcryptoErrorQueue.takeReason())
        }
        guard let key = PrivateKey(pem: credentials.privateKeyPEM) else {
            throw .noPrivateKey(credentials.keySource, detail: "it is encrypted, damaged or not a key")
        }
        guard SSL_CTX_use_PrivateKey(context, key.pointer) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw .keyMismatch(key: credentials.keySource, certificate: credentials.certificateSource)
        }
        do {
            return try leaf.fingerprintSHA256()
        } catch {
            throw .openSSL("taking the certificate's fingerprint", detail: error.description)
        }
    }

    /// Every PEM certificate in `pem`, in order.
    private static func readCertificates(_ pem: [UInt8]) -> [X509Certificate] {
        let certificates =
            MemoryBIO.reading(pem) { bio -> [X509Certificate] in
                var certificates: [X509Certificate] = []
                while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                    certificates.append(X509Certificate(taking: certificate))
                }
                return certificates
            } ?? []
        // The loop ends on "no start line" once the chain is read: not an error to keep.
        LibcryptoErrorQueue.clear()
        return certificates
    }
}

/// RFC 7301 §3.2: pick `http/1.1` from the client's list; a client that offers only other
/// protocols (h2 alone) goes on without ALPN rather than failing, as nginx does.
private func selectHTTP11(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?, _ offered: UnsafePointer<UInt8>?,
    _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let offered, let out, let outLength else { return SSL_TLSEXT_ERR_NOACK }
    let wanted: [UInt8] = Array("http/1.1".utf8)
    var index = 0
    let count = Int(offeredLength)
    while index < count {
        let length = Int(offered[index])
        let start = index + 1
        guard start + length <= count else { break }
        if length == wanted.count && (0..<length).allSatisfy({ offered[start + $0] == wanted[$0] }) {
            out.pointee = offered + start
            outLength.pointee = UInt8(length)
            return SSL_TLSEXT_ERR_OK
        }
        index = start + length
    }
    return SSL_TLSEXT_ERR_NOACK
}

/// Why HTTPS cannot start; each sentence names the file at fault (the daemon exits 2).
public enum TLSError: Error, CustomStringConvertible, Sendable {
    case noCertificate(String)
    case unusableCertificate(String, detail: String)
    case noPrivateKey(String, detail: String)
    case keyMismatch(key: String, certificate: String)
    case openSSL(String, detail: String)

    public var description: String {
        switch self {
        case .noCertificate(let source):
            "the TLS certificate \(source) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        case .unusableCertificate(let source, let detail):
            "the TLS certificate \(source) cannot be used: \(detail)"
        case .noPrivateKey(let source, let detail):
            "the TLS key \(source) holds no readable PEM private key: \(detail)"
        case .keyMismatch(let key, let certificate):
            "the TLS key \(key) does not belong to the certificate \(certificate)"
        case .openSSL(let step, let detail):
            "OpenSSL failed at \(step): \(detail)"
        }
    }
}
