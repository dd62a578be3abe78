import CCrypto
import Glibc

/// Owns one libcrypto `X509` and frees it exactly once, in `deinit`; reads what `tls = auto`
/// needs to know about it.
public final class X509Certificate {
    public let pointer: OpaquePointer

    public init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    /// Parses the first PEM certificate in `pem`; nil when there is none.
    public init?(pem: [UInt8]) {
        let parsed = MemoryBIO.reading(pem) { PEM_read_bio_X509($0, nil, nil, nil) }
        guard let parsed, let certificate = parsed else {
            LibcryptoErrorQueue.clear()
            return nil
        }
        pointer = certificate
    }

    public func pem() throws(CertificateError) -> [UInt8] {
        guard let pem = MemoryBIO.writing({ PEM_write_bio_X509($0, pointer) == 1 }) else {
            throw LibcryptoErrorQueue.failure("write a certificate as PEM")
        }
        return pem
    }

    /// The DER encoding: what `/ca.crt` serves and what a fingerprint is taken of.
    public func der() throws(CertificateError) -> [UInt8] {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { throw LibcryptoErrorQueue.failure("encode a certificate as DER") }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        guard written == length else { throw LibcryptoErrorQueue.failure("encode a certificate as DER") }
        return bytes
    }

    /// SHA-256 of the DER as `openssl x509 -fingerprint -sha256` prints it: uppercase hex
    /// pairs joined by colons.
    public func fingerprintSHA256() throws(CertificateError) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(pointer, EVP_sha256(), &digest, &length) == 1 else {
            throw LibcryptoErrorQueue.failure("take a certificate's SHA-256 fingerprint")
        }
        let hex = Array("0123456789ABCDEF")
        return digest.prefix(Int(length)).map { String([hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]]) }.joined(separator: ":")
    }

    /// notAfter in Unix seconds; nil if the field cannot be read as a time.
    public var notAfter: Int64? {
        var parts = tm()
        guard let time = X509_get0_notAfter(pointer), ASN1_TIME_to_tm(time, &parts) == 1 else {
            LibcryptoErrorQueue.clear()
            return nil
        }
        return Int64(timegm(&parts))
    }

    /// Whether it may sign certificates: basicConstraints CA:TRUE, and keyCertSign if it has
    /// a keyUsage (X509_check_ca's 1; its other non-zero answers are for v1 and Netscape certs).
    public var isCertificateAuthority: Bool {
        X509_check_ca(pointer) == 1
    }

    /// Whether `key` is the private half of this certificate's public key.
    public func matches(privateKey key: PrivateKey) -> Bool {
        defer { LibcryptoErrorQueue.clear() }
        return X509_check_private_key(pointer, key.pointer) == 1
    }
}
