import CCrypto

/// Owns one libcrypto `EVP_PKEY` and frees it exactly once, in `deinit`.
public final class PrivateKey {
    public let pointer: OpaquePointer

    private init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// A fresh ECDSA key on P-256 (prime256v1): what every browser and phone accepts, and
    /// much cheaper to sign with than RSA, which matters for handshakes per second.
    public static func generateP256() throws(CertificateError) -> PrivateKey {
        guard let key = filedrop_EVP_EC_gen("P-256") else { throw LibcryptoErrorQueue.failure("generate a P-256 key") }
        return PrivateKey(taking: key)
    }

    /// Parses an unencrypted PEM private key (PKCS#8 or traditional); nil for anything else.
    /// The passphrase callback refuses at once: without it OpenSSL would prompt on the terminal.
    public init?(pem: [UInt8]) {
        let parsed = MemoryBIO.reading(pem) { bio in
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let parsed, let key = parsed else {
            LibcryptoErrorQueue.clear()
            return nil
        }
        pointer = key
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public func pkcs8PEM() throws(CertificateError) -> [UInt8] {
        guard let pem = MemoryBIO.writing({ PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) == 1 }) else {
            throw LibcryptoErrorQueue.failure("write a private key as PEM")
        }
        return pem
    }
}
