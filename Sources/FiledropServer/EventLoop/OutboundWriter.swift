import CLinux
import FiledropHTTP
import Glibc

/// Writes one response to a non-blocking socket: the head, then bytes (a small file's
/// cached bytes among them), file regions (sendfile, zero-copy) or a streamed body pulled
/// chunk by chunk - chunked-encoded when the length is unknown. At most one chunk of a stream
/// is held at a time: a slow client makes us wait, never buffer. A stream's chunks are made
/// by a worker (a ZIP walks folders, reads files and deflates): `write` says `.needsChunk`,
/// and the connection hands the result to `accept`.
struct OutboundWriter {
    enum Segment {
        /// Bytes still to send (a slice: what was sent is dropped from its front).
        case bytes(ArraySlice<UInt8>)
        case file(FileRegion, sent: UInt64)
    }

    enum Progress {
        case finished
        case wouldBlock
        /// Wrote its share for this wakeup; call again (fairness between connections).
        case yielded
        /// Everything so far is out: the stream's next chunk is wanted, made off the loop.
        case needsChunk(any ResponseBodySource)
    }

    private var segments: [Segment] = []
    private var source: (any ResponseBodySource)?
    private var chunked = false
    /// Body bytes written (without head and chunk framing), for the access log.
    private(set) var bodyBytesSent: UInt64 = 0
    private var headBytesLeft = 0

    var isIdle: Bool { segments.isEmpty && source == nil }

    mutating func start(_ response: ConnectionStateMachine.OutboundResponse) {
        segments.removeAll(keepingCapacity: true)
        bodyBytesSent = 0
        chunked = response.framing == .chunked
        headBytesLeft = response.head.count
        // Head and a body held in memory leave in one sendmsg (see `write`): small responses
        // and small files cost one system call and no copy into a joined buffer.
        segments.append(.bytes(response.head[...]))
        switch response.body {
        case .empty:
            if chunked { append(Self.lastChunk) }
        case .bytes(let bytes):
            append(chunked ? Self.chunk(bytes)[...] : bytes[...])
            if chunked { append(Self.lastChunk) }
        case .file(let region):
            if let bytes = region.bytesInMemory {
                // A small file: this costs less than a sendfile, whose pipe machinery is a
                // fixed cost per call.
                append(bytes)
            } else {
                segments.append(.file(region, sent: 0))
            }
        case .stream(let stream):
            source = stream.wrappedValue
        }
    }

    private static let lastChunk = Array("0\r\n\r\n".utf8)[...]

    private mutating func append(_ bytes: ArraySlice<UInt8>) {
        if !bytes.isEmpty { segments.append(.bytes(bytes)) }
    }

    /// Queues raw bytes ahead of anything else (100 Continue).
    mutating func startInterim(_ bytes: [UInt8]) {
        segments = [.bytes(bytes[...])]
        headBytesLeft = bytes.count
    }

    /// Sends what it can to `fd`, through `tls` when the connection speaks TLS (its file
    /// regions then pass through `scratch`, the loop's buffer, unless the kernel encrypts).
    mutating func write(
        to fd: Int32, tls: TLSSession? = nil, scratch: UnsafeMutableRawBufferPointer? = nil,
        budget: Int = 4 << 20
    ) throws(SystemError) -> Progress {
        var written = 0
        while written < budget {
            if segments.isEmpty {
                guard let source else { return .finished }
                return .needsChunk(source)
            }
            switch segments[0] {
            case .bytes(let bytes):
                // Two pieces of memory in a row (a head and its body) go in one call.
                var following: ArraySlice<UInt8>?
                if segments.count > 1, case .bytes(let next) = segments[1] { following = next }
                let more = !(segments.count == (following == nil ? 1 : 2) && source == nil)
                let result: IOResult<Int>
                if let tls {
                    result = try Self.send(bytes, then: following, through: tls, scratch: scratch)
                } else {
                    let flags = Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0)
                    result = try nonBlockingSyscall("sendmsg") { Self.send(bytes, then: following, to: fd, flags: flags) }
                }
                guard case .done(let count) = result else { return .wouldBlock }
                written += count
                let headPart = min(count, headBytesLeft)
                headBytesLeft -= headPart
                bodyBytesSent += UInt64(count - headPart)
                dropSent(count)
            case .file(let region, let sent):
                var offset = off_t(region.offset + sent)
                let wanted = Int(min(region.length - sent, UInt64(budget - written)))
                if wanted == 0 {
                    segments.removeFirst()
                    continue
                }
                let result: IOResult<Int>
                if let tls, let scratch {
                    result = try tls.sendFile(region.file.descriptor, offset: UInt64(offset), length: wanted, scratch: scratch)
                } else {
                    result = try nonBlockingSyscall("sendfile") { sendfile(fd, region.file.descriptor, &offset, wanted) }
                }
                guard case .done(let count) = result else { return .wouldBlock }
                if count == 0 {
                    // The file shrank under us: the promised length can no longer be met.
                    throw SystemError(call: "sendfile (file truncated)", errno: EIO)
                }
                written += count
                bodyBytesSent += UInt64(count)
                if sent + UInt64(count) == region.length {
                    segments.removeFirst()
                } else {
                    segments[0] = .file(region, sent: sent + UInt64(count))
                }
            }
        }
        return .yielded
    }

    /// send(2), or sendmsg(2) with two pieces; returns what the kernel took.
    private static func send(_ first: ArraySlice<UInt8>, then second: ArraySlice<UInt8>?, to fd: Int32, flags: Int32) -> Int {
        first.withUnsafeBytes { head in
            guard let second else { return Glibc.send(fd, head.baseAddress, head.count, flags) }
            return second.withUnsafeBytes { body in
                var pieces = (
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count),
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count)
                )
                return withUnsafeMutableBytes(of: &pieces) { vector in
                    var message = msghdr()
                    message.msg_iov = vector.baseAddress!.assumingMemoryBound(to: iovec.self)
                    message.msg_iovlen = 2
                    return sendmsg(fd, &message, flags)
                }
            }
        }
    }

    /// Through TLS: a head and a small body are joined in `scratch` to go as one record (one
    /// system call, one record's overhead); anything bigger goes piece by piece.
    private static func send(
        _ first: ArraySlice<UInt8>, then second: ArraySlice<UInt8>?, through tls: TLSSession,
        scratch: UnsafeMutableRawBufferPointer?
    ) throws(SystemError) -> IOResult<Int> {
        if let second, let scratch, first.count + second.count <= min(scratch.count, tlsRecordSize) {
            first.withUnsafeBytes { scratch.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: first.count) }
            second.withUnsafeBytes {
                (scratch.baseAddress! + first.count).copyMemory(from: $0.baseAddress!, byteCount: second.count)
            }
            return try tls.write(UnsafeRawBufferPointer(rebasing: scratch[..<(first.count + second.count)]))
        }
        let result = first.withUnsafeBytes { bytes in Result { () throws(SystemError) in try tls.write(bytes) } }
        return try result.get()
    }

    /// The most plaintext one TLS record carries (RFC 8446 §5.1).
    private static let tlsRecordSize = 16 * 1024

    /// Drops `count` sent bytes from the front of the leading byte segments (never empty:
    /// `append` skips empty ones, and a head is never empty).
    private mutating func dropSent(_ count: Int) {
        var left = count
        while left > 0 {
            guard case .bytes(let bytes) = segments[0] else { preconditionFailure("sent more than the byte segments held") }
            if left >= bytes.count {
                segments.removeFirst()
                left -= bytes.count
            } else {
                segments[0] = .bytes(bytes.dropFirst(left))
                left = 0
            }
        }
    }

    /// Queues what the stream's `nextChunk()` gave (nil: the end).
    mutating func accept(_ produced: Result<ResponseChunk?, any Error>) throws(SystemError) {
        let chunk: ResponseChunk?
        switch produced {
        case .success(let next):
            chunk = next
        case .failure(let error):
            // Mid-body failure: the only honest signal left is to cut the connection.
            throw SystemError(call: "response stream: \(error)", errno: EIO)
        }
        switch chunk {
        case nil:
            source = nil
            if chunked { append(Self.lastChunk) }
        case .bytes(let bytes):
            append(chunked ? Self.chunk(bytes)[...] : bytes[...])
        case .file(let region):
            guard region.length > 0 else { break }
            if let bytes = region.bytesInMemory {
                append(chunked ? Self.chunk(Array(bytes))[...] : bytes)
                break
            }
            if chunked { append(Array("\(String(region.length, radix: 16))\r\n".utf8)[...]) }
            segments.append(.file(region, sent: 0))
            if chunked { append(Array("\r\n".utf8)[...]) }
        }
    }

    /// RFC 9112 §7.1: size in hex, CRLF, data, CRLF.
    private static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        return Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10]
    }
}
