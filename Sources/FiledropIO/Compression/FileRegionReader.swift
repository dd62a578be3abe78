import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc

/// Reads a file region front to back with pread(2) into one reused buffer, for bodies that
/// must look at the bytes (compression, checksums) and so cannot use sendfile.
struct FileRegionReader {
    /// Bytes per read: large enough to keep syscalls rare, small enough to stay in cache.
    static let pieceSize = 256 << 10

    let region: FileRegion
    private(set) var consumed: UInt64 = 0
    private var buffer: [UInt8]

    init(_ region: FileRegion, pieceSize: Int = Self.pieceSize) {
        self.region = region
        buffer = [UInt8](repeating: 0, count: pieceSize)
    }

    /// Hands the next piece to `body`; an empty piece means the end (all of the region was
    /// read, or the file shrank).
    mutating func withNextPiece<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let wanted = Int(min(UInt64(buffer.count), region.length - consumed))
        var count = 0
        if wanted > 0, let contents = region.file as? FileContents {
            let piece = contents.bytes(of: region).dropFirst(Int(consumed)).prefix(wanted)
            consumed += UInt64(piece.count)
            return try piece.withUnsafeBytes { try body($0) }
        }
        if wanted > 0 {
            let descriptor = region.file.descriptor
            let offset = off_t(region.offset + consumed)
            count = try buffer.withUnsafeMutableBytes { raw in
                try syscall("pread") { pread(descriptor, raw.baseAddress!, wanted, offset) }
            }
        }
        consumed += UInt64(count)
        return try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}
