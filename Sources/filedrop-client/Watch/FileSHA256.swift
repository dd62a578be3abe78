import CCrypto
import Glibc

/// The SHA-256 of a local file as 64 lowercase hex digits, read in 1 MiB pieces (memory
/// stays flat whatever the size), hashed by libcrypto's EVP interface: what a watched
/// file's server-side hash is checked against before the local copy is deleted or moved.
enum FileSHA256 {
    static func of(path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            guard EVP_DigestUpdate(context, buffer.baseAddress, count) == 1 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 32 else { return nil }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text = ""
        for byte in digest.prefix(32) {
            text.unicodeScalars.append(UnicodeScalar(hex[Int(byte >> 4)]))
            text.unicodeScalars.append(UnicodeScalar(hex[Int(byte & 0xF)]))
        }
        return text
    }
}
