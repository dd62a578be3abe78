import CZlib

/// A running CRC-32 (ISO-HDLC, the one zip, gzip and PNG use) computed by zlib's `crc32()`,
/// fed chunk by chunk as an upload streams in.
public struct CRC32: Sendable, Equatable {
    /// zlib takes lengths as `uInt` (32 bits), so bigger buffers are fed in pieces of this size.
    static let largestPiece = 1 << 30

    public private(set) var value: UInt32 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        update(bytes, largestPiece: Self.largestPiece)
    }

    /// `update(_:)` with the piece size as a parameter, so tests can cross piece boundaries
    /// without allocating gigabytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer, largestPiece: Int) {
        guard var base = bytes.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return }
        var remaining = bytes.count
        var crc = uLong(value)
        while remaining > 0 {
            let piece = min(remaining, largestPiece)
            crc = crc32(crc, base, uInt(piece))
            base += piece
            remaining -= piece
        }
        value = UInt32(truncatingIfNeeded: crc)
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if handled == nil {
            update(Array(bytes))
        }
    }

    /// The CRC-32 of `bytes` in one go.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
