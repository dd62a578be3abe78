import CZlib

/// zlib's inflate, for checking what the server deflated: `windowBits` 31 for gzip
/// (RFC 1952), -15 for the raw deflate of ZIP entries.
func inflated(_ bytes: [UInt8], windowBits: Int32) -> [UInt8]? {
    var stream = z_stream()
    guard filedrop_inflateInit2(&stream, windowBits) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var status = Z_OK
    bytes.withUnsafeBufferPointer { input in
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.avail_in = uInt(input.count)
        repeat {
            buffer.withUnsafeMutableBufferPointer { out in
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                status = inflate(&stream, Z_NO_FLUSH)
                output += out[..<(out.count - Int(stream.avail_out))]
            }
        } while status == Z_OK
    }
    // The whole input must be one complete stream, nothing after it.
    return status == Z_STREAM_END && stream.avail_in == 0 ? output : nil
}
