/// The hash functions behind the tus checksum extension. The core only names them; the I/O
/// layer computes them (libcrypto), so no hash is written by hand and the core stays pure.
public protocol DigestProvider: Sendable {
    /// Algorithm names as tus spells them (lowercase, protocol.md "Checksum"), `sha1` first:
    /// the spec makes it mandatory.
    var algorithms: [String] { get }
    /// A fresh digest, nil for an algorithm not in `algorithms`.
    func makeDigest(algorithm: String) -> (any IncrementalDigest)?
}

/// A hash fed as the body streams in, so a PATCH is checked without holding it in memory.
public protocol IncrementalDigest: AnyObject {
    func update(_ bytes: UnsafeRawBufferPointer)
    /// The digest of everything fed so far; call once.
    func finish() -> [UInt8]
}
