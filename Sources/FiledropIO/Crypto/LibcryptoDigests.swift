import CCrypto
import FiledropCore

/// SHA-1 and MD5 from OpenSSL's libcrypto (EVP_DigestInit_ex / Update / Final_ex), SHA-256
/// from its own functions (`LibcryptoSHA256`), for the tus checksum extension: sha1 is the
/// one the protocol makes mandatory, sha256 the one filedrop keeps with every file, md5 is
/// what some clients send. Nothing here is hand-written hashing.
public struct LibcryptoDigests: DigestProvider {
    public init() {}

    public var algorithms: [String] { ["sha1", "sha256", "md5"] }

    public func makeDigest(algorithm: String) -> (any IncrementalDigest)? {
        switch algorithm {
        case "sha1": EVPDigest(EVP_sha1())
        case "sha256": LibcryptoSHA256()
        case "md5": EVPDigest(EVP_md5())
        default: nil
        }
    }
}

/// One EVP_MD_CTX, fed as bytes arrive. Allocation failure is fatal: it only happens when
/// the process is out of memory.
final class EVPDigest: IncrementalDigest {
    private let context: OpaquePointer

    init?(_ type: OpaquePointer?) {
        guard let type, let context = EVP_MD_CTX_new() else { return nil }
        guard EVP_DigestInit_ex(context, type, nil) == 1 else {
            EVP_MD_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "EVP_DigestUpdate failed")
    }

    func finish() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &output, &length) == 1, "EVP_DigestFinal_ex failed")
        return Array(output.prefix(Int(length)))
    }
}
