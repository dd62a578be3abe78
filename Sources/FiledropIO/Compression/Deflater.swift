import CZlib

/// One zlib deflate stream: gzip-wrapped (RFC 1952) for `Content-Encoding: gzip`, or raw
/// (RFC 1951, no header) for ZIP entries. Input goes in pieces, output comes back in pieces,
/// so memory stays at zlib's window plus one output buffer whatever the total size.
final class Deflater {
    enum Format {
        case gzip
        case raw

        /// zlib's windowBits: 15 (32 KiB window), +16 asks for the gzip wrapper, negative for none.
        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .raw: -15
            }
        }
    }

    /// Output is drained through a buffer of this size.
    static let outputPiece = 64 << 10

    // zlib keeps a pointer back to the z_stream and checks it on every call, so the struct
    // must never move: it lives in its own allocation.
    private let stream: UnsafeMutablePointer<z_stream>
    private var scratch: [UInt8]
    private(set) var isFinished = false

    /// Level 6 is zlib's default: most of level 9's ratio at about twice its speed.
    init(format: Format, level: Int32 = 6) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = [UInt8](repeating: 0, count: Self.outputPiece)
        // memLevel 8 is zlib's default (about 256 KiB of state per stream).
        let status = filedrop_deflateInit2(stream, level, Z_DEFLATED, format.windowBits, 8, Z_DEFAULT_STRATEGY)
        // Fails only for invalid parameters (ours are constant) or no memory at all.
        precondition(status == Z_OK, "deflateInit2 failed with \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input`, appending whatever zlib produced to `output`; `finish` ends the
    /// stream (writes the final block and, for gzip, the CRC-32 and length trailer).
    func compress(_ input: UnsafeRawBufferPointer, finish: Bool, into output: inout [UInt8]) {
        precondition(!isFinished, "deflate stream already finished")
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        let flush = finish ? Z_FINISH : Z_NO_FLUSH
        scratch.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            // zlib's documented loop: call again while it filled the whole output buffer.
            repeat {
                stream.pointee.next_out = base
                stream.pointee.avail_out = uInt(buffer.count)
                let status = deflate(stream, flush)
                precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "deflate failed with \(status)")
                output.append(
                    contentsOf: UnsafeRawBufferPointer(start: base, count: buffer.count - Int(stream.pointee.avail_out)))
            } while stream.pointee.avail_out == 0
        }
        stream.pointee.next_in = nil
        if finish { isFinished = true }
    }

    /// The whole of `bytes` compressed in one go.
    static func compressed(_ bytes: [UInt8], format: Format, level: Int32 = 6) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 2 + 64)
        let deflater = Deflater(format: format, level: level)
        bytes.withUnsafeBytes { deflater.compress($0, finish: true, into: &output) }
        return output
    }
}
