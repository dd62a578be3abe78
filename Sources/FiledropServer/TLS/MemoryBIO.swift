import CCrypto

/// libcrypto's in-memory BIOs: how bytes go into and come out of its PEM codecs here, so no
/// key ever passes through a file libcrypto opens itself.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes`; nil when no BIO could be made (or
    /// `bytes` is empty, which OpenSSL refuses).
    static func reading<Result>(_ bytes: [UInt8], _ body: (OpaquePointer) -> Result) -> Result? {
        bytes.withUnsafeBytes { raw -> Result? in
            guard let base = raw.baseAddress, raw.count > 0, raw.count <= Int(Int32.max),
                let bio = BIO_new_mem_buf(base, Int32(raw.count))
            else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// The bytes `body` writes into a fresh memory BIO, or nil when `body` reports failure.
    static func writing(_ body: (OpaquePointer) -> Bool) -> [UInt8]? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        let count = filedrop_BIO_get_mem_data(bio, &data)
        guard count > 0, let data else { return count == 0 ? [] : nil }
        return Array(UnsafeRawBufferPointer(start: data, count: count))
    }
}
