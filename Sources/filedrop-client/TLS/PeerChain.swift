import CSSL
import FiledropClient

/// The certificates a server sent on a libssl connection, leaf first, with their SHA-256
/// fingerprints (libcrypto's `X509_digest`: no hashing of our own).
enum PeerChain {
    /// SSL_get_peer_cert_chain(3): on a client it holds the leaf too. It is kept when the
    /// handshake fails verification, which is how an untrusted server's certificate is shown.
    static func certificates(of ssl: OpaquePointer) -> [PeerCertificate] {
        guard let stack = SSL_get_peer_cert_chain(ssl) else { return [] }
        return (0..<OPENSSL_sk_num(stack)).compactMap { index in
            OPENSSL_sk_value(stack, index).map { peerCertificate(OpaquePointer($0)) }
        }
    }

    static func peerCertificate(_ certificate: OpaquePointer) -> PeerCertificate {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = X509_digest(certificate, EVP_sha256(), &digest, &length)
        let fingerprint =
            CertificateFingerprint(digest: Array(digest.prefix(Int(length))))
            ?? CertificateFingerprint(digest: [UInt8](repeating: 0, count: 32))!
        return PeerCertificate(der: der(of: certificate), fingerprint: fingerprint, subject: subject(of: certificate))
    }

    static func der(of certificate: OpaquePointer) -> [UInt8] {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_X509(certificate, &cursor)
        }
        return bytes
    }

    /// `/CN=filedrop CA/O=...` (X509_NAME_oneline(3)), for people.
    private static func subject(of certificate: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        guard let name = X509_get_subject_name(certificate), X509_NAME_oneline(name, &buffer, Int32(buffer.count)) != nil else {
            return ""
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
