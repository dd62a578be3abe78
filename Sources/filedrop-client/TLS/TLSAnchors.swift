import CSSL
import FiledropClient
import Glibc

/// The certificates a TLS connection of the client accepts as trust anchors.
enum TLSAnchors {
    /// libssl's default verify paths: on Debian the same bundle libcurl (and so URLSession)
    /// uses, `/etc/ssl/certs/ca-certificates.crt`, and the hashed `/etc/ssl/certs`.
    case system
    /// Only these certificates (DER). Any of them may be a leaf: the store allows partial
    /// chains, as curl does for `--cacert`, so a pinned server certificate is an anchor.
    case certificates([[UInt8]])

    /// The certificates of a PEM (one or more) or DER file, read with libcrypto's parsers.
    static func certificates(inFile path: String) throws(TLSConnectionError) -> TLSAnchors {
        guard let file = fopen(path, "rb") else { throw .setup("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var certificates: [[UInt8]] = []
        while let certificate = PEM_read_X509(file, nil, nil, nil) {
            certificates.append(PeerChain.der(of: certificate))
            X509_free(certificate)
        }
        ERR_clear_error()
        if certificates.isEmpty {
            rewind(file)
            if let certificate = d2i_X509_fp(file, nil) {
                certificates.append(PeerChain.der(of: certificate))
                X509_free(certificate)
            }
            ERR_clear_error()
        }
        guard !certificates.isEmpty else { throw .setup("no certificate in \(path) (PEM or DER expected)") }
        return .certificates(certificates)
    }

    /// Puts the anchors into `context`'s store and asks for verification.
    func install(in context: OpaquePointer) throws(TLSConnectionError) {
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        switch self {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context) == 1 else { throw .setup("cannot load the system trust store") }
        case .certificates(let certificates):
            guard let store = SSL_CTX_get_cert_store(context) else { throw .setup("no certificate store") }
            for der in certificates {
                let certificate = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                    var cursor = buffer.baseAddress
                    return d2i_X509(nil, &cursor, buffer.count)
                }
                guard let certificate else { throw .setup("an anchor certificate does not parse") }
                defer { X509_free(certificate) }
                guard X509_STORE_add_cert(store, certificate) == 1 else { throw .setup("cannot add an anchor certificate") }
            }
            X509_STORE_set_flags(store, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        }
    }
}
