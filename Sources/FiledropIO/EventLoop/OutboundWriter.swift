import FiledropCore
import CLinux
import Glibc

/// Writes one response to a non-blocking socket: the head, then bytes, file regions
/// (sendfile, zero-copy) or a streamed body pulled chunk by chunk - chunked-encoded when the
/// length is unknown. At most one chunk of a stream is held at a time: a slow client makes
/// us wait, never buffer.
struct OutboundWriter {
    enum Segment {
        case bytes([UInt8], offset: Int)
        case file(FileRegion, sent: UInt64)
    }

    enum Progress {
        case finished
        case wouldBlock
        /// Wrote its share for this wakeup; call again (fairness between connections).
        case yielded
    }

    private var segments: [Segment] = []
    private var source: (any ResponseBodySource)?
    private var chunked = false
    /// Body bytes written (without head and chunk framing), for the access log.
    private(set) var bodyBytesSent: UInt64 = 0
    private var headBytesLeft = 0

    var isIdle: Bool { segments.isEmpty && source == nil }

    mutating func start(_ response: ConnectionStateMachine.OutboundResponse) {
        segments.removeAll()
        bodyBytesSent = 0
        chunked = response.framing == .chunked
        headBytesLeft = response.head.count
        switch response.body {
        case .empty:
            segments.append(.bytes(response.head, offset: 0))
            if chunked { segments.append(.bytes(Array("0\r\n\r\n".utf8), offset: 0)) }
        case .bytes(let bytes):
            // One write for small responses: head and body together.
            segments.append(.bytes(response.head + (chunked ? Self.chunk(bytes) : bytes), offset: 0))
            if chunked { segments.append(.bytes(Array("0\r\n\r\n".utf8), offset: 0)) }
        case .file(let region):
            if let contents = region.file as? FileContents {
                // A small file: one send of head and bytes costs less than a send of the head
                // (MSG_MORE) plus a sendfile, whose pipe machinery is a fixed cost per call.
                segments.append(.bytes(response.head + contents.bytes(of: region), offset: 0))
            } else {
                segments.append(.bytes(response.head, offset: 0))
                segments.append(.file(region, sent: 0))
            }
        case .stream(let stream):
            segments.append(.bytes(response.head, offset: 0))
            source = stream
        }
    }

    /// Queues raw bytes ahead of anything else (100 Continue).
    mutating func startInterim(_ bytes: [UInt8]) {
        segments = [.bytes(bytes, offset: 0)]
        headBytesLeft = bytes.count
    }

    mutating func write(to fd: Int32, budget: Int = 4 << 20) throws(SystemError) -> Progress {
        var written = 0
        while written < budget {
            if segments.isEmpty {
                guard try pullFromSource() else { return .finished }
                continue
            }
            switch segments[0] {
            case .bytes(let bytes, let offset):
                let more = !(segments.count == 1 && source == nil)
                let flags = Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0)
                let result = try nonBlockingSyscall("send") {
                    bytes.withUnsafeBytes { raw in send(fd, raw.baseAddress! + offset, raw.count - offset, flags) }
                }
                guard case .done(let count) = result else { return .wouldBlock }
                written += count
                let headPart = min(count, headBytesLeft)
                headBytesLeft -= headPart
                bodyBytesSent += UInt64(count - headPart)
                if offset + count == bytes.count {
                    segments.removeFirst()
                } else {
                    segments[0] = .bytes(bytes, offset: offset + count)
                }
            case .file(let region, let sent):
                var offset = off_t(region.offset + sent)
                let wanted = Int(min(region.length - sent, UInt64(budget - written)))
                if wanted == 0 {
                    segments.removeFirst()
                    continue
                }
                let result = try nonBlockingSyscall("sendfile") { sendfile(fd, region.file.descriptor, &offset, wanted) }
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

    /// Refills `segments` from the stream; false when the response is complete.
    private mutating func pullFromSource() throws(SystemError) -> Bool {
        guard let stream = source else { return false }
        let chunk: ResponseChunk?
        do {
            chunk = try stream.nextChunk()
        } catch {
            // Mid-body failure: the only honest signal left is to cut the connection.
            throw SystemError(call: "response stream: \(error)", errno: EIO)
        }
        switch chunk {
        case nil:
            source = nil
            if chunked { segments.append(.bytes(Array("0\r\n\r\n".utf8), offset: 0)) }
        case .bytes(let bytes):
            if !bytes.isEmpty { segments.append(.bytes(chunked ? Self.chunk(bytes) : bytes, offset: 0)) }
        case .file(let region):
            guard region.length > 0 else { break }
            if let contents = region.file as? FileContents {
                let bytes = Array(contents.bytes(of: region))
                segments.append(.bytes(chunked ? Self.chunk(bytes) : bytes, offset: 0))
                break
            }
            if chunked { segments.append(.bytes(Array("\(String(region.length, radix: 16))\r\n".utf8), offset: 0)) }
            segments.append(.file(region, sent: 0))
            if chunked { segments.append(.bytes(Array("\r\n".utf8), offset: 0)) }
        }
        return true
    }

    /// RFC 9112 §7.1: size in hex, CRLF, data, CRLF.
    private static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        return Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10]
    }
}
