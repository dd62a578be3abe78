import CSSL
import FiledropClient
import Foundation

/// The SHA-256 of a local file from libcrypto (EVP), read in 1 MiB blocks: `filedrop send`
/// compares it with the one the server computed of what it stored.
enum LocalSHA256 {
    static func of(_ file: URL) throws(FiledropClientError) -> String {
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw .localFile(path: file.path, reason: "cannot be read to check its SHA-256")
        }
        defer { try? handle.close() }
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex failed")
        while true {
            let block: Data
            do {
                block = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw .localFile(path: file.path, reason: "cannot be read to check its SHA-256: \(error.localizedDescription)")
            }
            if block.isEmpty { break }
            block.withUnsafeBytes { bytes in
                precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "EVP_DigestUpdate failed")
            }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1, "EVP_DigestFinal_ex failed")
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
