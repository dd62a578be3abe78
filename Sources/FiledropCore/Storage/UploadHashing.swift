/// SHA-256 of every upload, computed while it streams (issue 21, "Integrity"). The core only
/// feeds bytes and asks for the result; `FiledropIO.PipelinedSHA256` hashes with libcrypto on
/// threads of its own, so the event loop pays for a copy of the bytes, not for the hash.
public protocol UploadHashing: Sendable {
    /// A fresh SHA-256 for one upload's bytes.
    func makeStream() -> any UploadDigestStream
}

/// One upload's running SHA-256. `feed` never blocks; the bytes it is given may be reused at
/// once. When hashing falls behind the upload, `isBehind` says so and the writer pauses on
/// a worker (`waitUntilCaughtUp`) before it takes more, so what waits stays bounded.
/// Fed by one request at a time (a tus upload hands its stream from PATCH to PATCH).
public protocol UploadDigestStream: AnyObject, Sendable {
    /// Bytes fed so far: a tus upload's stream is only continued at the offset it reached.
    var bytesFed: UInt64 { get }
    func feed(_ bytes: UnsafeRawBufferPointer)
    /// More is waiting to be hashed than the bound allows.
    var isBehind: Bool { get }
    /// Blocking, on a worker: returns once hashing is back under the bound.
    func waitUntilCaughtUp()
    /// Blocking, on a worker: the 32-byte digest of everything fed. Call once.
    func finish() -> [UInt8]
}

/// The forms a SHA-256 is shown in: lowercase hex (the answer, the listing, the xattr,
/// `sha256sum`) and RFC 9530's `Repr-Digest` (base64 in a byte sequence).
public enum SHA256Text {
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of 64 hex digits; nil for anything else.
    public static func bytes(hex: String) -> [UInt8]? {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// RFC 9530 §3: `sha-256=:BASE64:` (a structured-field byte sequence).
    public static func reprDigest(_ digest: [UInt8]) -> String {
        "sha-256=:" + Base64.encode(digest) + ":"
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
