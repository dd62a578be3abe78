import CCrypto
import FiledropCore

/// SHA-256 from libcrypto's digest functions themselves rather than through EVP: EVP's
/// first digest loads and initializes OpenSSL's default provider, which brought 1.6 MiB of
/// libcrypto's code (and 0.5 MiB of its data) into a daemon that needs no provider until
/// TLS is on, and kept it resident after the first upload. The assembly doing the work
/// (SHA-NI, AVX2) is the same either way, and so is the speed. Every upload's hash and the
/// tus `sha256` checksum.
final class LibcryptoSHA256: IncrementalDigest {
    private var context = SHA256_CTX()

    init() {
        precondition(filedrop_SHA256_Init(&context) == 1, "SHA256_Init failed")
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(filedrop_SHA256_Update(&context, base, bytes.count) == 1, "SHA256_Update failed")
    }

    func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        precondition(filedrop_SHA256_Final(&digest, &context) == 1, "SHA256_Final failed")
        return digest
    }
}
