/// Turns a `Response` into the bytes of its status line and header section, adding the
/// headers every response carries. The one place where framing headers are decided.
public enum ResponseHeadSerializer {
    /// How the body goes on the wire.
    public enum BodyFraming: Equatable, Sendable {
        case none
        case contentLength(UInt64)
        /// Length unknown ahead: chunked for HTTP/1.1 clients (RFC 9112 §7.1).
        case chunked
        /// Length unknown and the client speaks HTTP/1.0: the end is the connection closing.
        case untilClose
    }

    /// The fields added to every response that did not set them itself (defence in depth:
    /// nothing sent may be sniffed into script, leak the URL it came from, be framed by
    /// another site, or run anything), in the order they go on the wire. An application sets
    /// its own Content-Security-Policy on what it means a browser to run.
    public static let defaultFields: [(name: HTTPFieldName, value: String)] = [
        (.xContentTypeOptions, "nosniff"),
        (.referrerPolicy, "no-referrer"),
        (.xFrameOptions, "DENY"),
        (.contentSecurityPolicy, "default-src 'none'; frame-ancestors 'none'"),
    ]

    static let securityHeaders = defaultFields

    /// `securityHeaders` as they go on the wire, for the usual response that sets none of
    /// them itself: one copy instead of sixteen small ones, written out once per process.
    static let securityHeaderBlock: [UInt8] = securityHeaders.flatMap { Array("\($0.name.text): \($0.value)\r\n".utf8) }

    public static func serialize(
        _ response: Response, version: HTTPVersion, keepAlive: Bool, date: String
    ) -> (head: [UInt8], framing: BodyFraming) {
        let framing = bodyFraming(of: response, version: version)
        let closes = !keepAlive || framing == .untilClose
        // Written into one buffer sized up front: this runs once per response, and String
        // concatenation (then array appends) showed up in profiles of small-file benchmarks.
        // 64 for the status line's fixed part and Server, 64 for the framing fields.
        let status = response.status
        let fixed = 128 + status.reason.utf8.count + date.utf8.count
        // The closures below name `status`, not `response`: capturing the response copied it.
        // A field block made by `fieldBlock(of:)` for these very headers (`Response` drops it
        // when they change): the bytes the loop below would write, copied at once.
        if let block = response.fieldBlock {
            assert(block == fieldBlock(of: response.headers), "a field block outlived its headers")
            let head = HeadWriter.bytes(capacity: fixed + block.count) { out in
                out.statusLine(status, date: date)
                block.withUnsafeBytes { out.copy($0) }
                out.framing(framing, closes: closes, version: version)
            }
            return (head, framing)
        }
        // The fields are read in place (no copy, no retain).
        let storage = response.headers.storage
        let head = response.headers.fields.withUnsafeBufferPointer { fields in
            let (size, handlerSet) = measure(fields, storage)
            return HeadWriter.bytes(capacity: fixed + size) { out in
                out.statusLine(status, date: date)
                write(fields, storage, handlerSet: handlerSet, to: &out)
                out.framing(framing, closes: closes, version: version)
            }
        }
        return (head, framing)
    }

    /// The bytes `serialize` writes for `headers` between Server and the framing fields: the
    /// handler's fields but framing ones, then the security headers it did not set. Made once
    /// for headers sent again and again (`SerializedHeaders`); by the same code as every
    /// other head, so the two can never differ.
    static func fieldBlock(of headers: HTTPHeaders) -> [UInt8] {
        headers.fields.withUnsafeBufferPointer { fields in
            let (size, handlerSet) = measure(fields, headers.storage)
            return HeadWriter.bytes(capacity: size) { out in write(fields, headers.storage, handlerSet: handlerSet, to: &out) }
        }
    }

    /// An upper bound of the bytes `write` takes for `fields`, and which security headers the
    /// handler set itself (by bit, as `securityHeaderBit` numbers them). Most fields are told
    /// apart from the framing and security headers by their name's length alone.
    private static func measure(_ fields: UnsafeBufferPointer<HTTPHeaders.Entry>, _ storage: FieldBytes?) -> (
        size: Int, handlerSet: UInt8
    ) {
        let security = securityHeaders
        var size = 0
        var handlerSet: UInt8 = 0
        for index in fields.indices {
            size += fields[index].nameLength + fields[index].value(in: storage).utf8.count + 4
            handlerSet |= securityHeaderBit(fields[index], storage, among: security)
        }
        for index in security.indices where handlerSet & (1 << index) == 0 {
            size += security[index].name.key.length + security[index].value.utf8.count + 4
        }
        return (size, handlerSet)
    }

    /// The field lines of `fields` (framing fields dropped), then the missing security headers.
    private static func write(
        _ fields: UnsafeBufferPointer<HTTPHeaders.Entry>, _ storage: FieldBytes?, handlerSet: UInt8,
        to out: inout HeadWriter
    ) {
        for index in fields.indices where !isFramingHeader(fields[index], storage) {
            out.field(fields[index].name(in: storage), fields[index].value(in: storage))
        }
        if handlerSet == 0 {
            securityHeaderBlock.withUnsafeBytes { out.copy($0) }
        } else {
            let security = securityHeaders
            for index in security.indices where handlerSet & (1 << index) == 0 {
                out.field(security[index].name.text, security[index].value)
            }
        }
    }

    /// Content-Length, Transfer-Encoding and Connection are the serializer's own decision:
    /// a handler's are dropped. The length is checked first so most names cost no comparison.
    private static func isFramingHeader(_ field: HTTPHeaders.Entry, _ storage: FieldBytes?) -> Bool {
        switch field.nameLength {
        case 10: field.hasName(.connection, in: storage)
        case 14: field.hasName(.contentLength, in: storage)
        case 17: field.hasName(.transferEncoding, in: storage)
        default: false
        }
    }

    /// The bit (by position in `security`) of the security header `field` is, or 0.
    private static func securityHeaderBit(
        _ field: HTTPHeaders.Entry, _ storage: FieldBytes?, among security: [(name: HTTPFieldName, value: String)]
    ) -> UInt8 {
        // Their names are 15, 22 and 23 bytes long: any other length is none of them.
        guard field.nameLength == 15 || field.nameLength == 22 || field.nameLength == 23 else { return 0 }
        for index in security.indices where field.hasName(security[index].name, in: storage) {
            return 1 << index
        }
        return 0
    }

    /// RFC 9110 §9.3.2: HEAD is answered with GET's response (the connection drops the body),
    /// so its framing headers are GET's.
    static func bodyFraming(of response: Response, version: HTTPVersion) -> BodyFraming {
        guard response.status.allowsContent else { return .none }
        if let length = response.body.knownLength { return .contentLength(length) }
        return version == .http1_1 ? .chunked : .untilClose
    }
}

/// Fills a buffer sized ahead by `ResponseHeadSerializer` (it traps rather than overrun it).
private struct HeadWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    /// What `write` puts in a buffer of `capacity` bytes. It writes on the stack (a head is
    /// a few hundred bytes) and the array is made by copying: `Array(unsafeUninitializedCapacity:)`
    /// looks up the array's type metadata on every call, which costs more than the copy.
    static func bytes(capacity: Int, _ write: (inout HeadWriter) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var out = HeadWriter(buffer: buffer)
            write(&out)
            return Array(UnsafeBufferPointer(rebasing: buffer[..<out.count]))
        }
    }

    mutating func write(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return }
            copy(UnsafeRawBufferPointer(start: base, count: bytes.count))
        }
        if copied == nil {
            for byte in text.utf8 {
                buffer[count] = byte
                count += 1
            }
        }
    }

    /// A literal: its bytes are already in the binary, no String to look into.
    mutating func write(_ text: StaticString) {
        copy(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `HTTP/1.1 <code> <reason>`, Date and Server: how every head starts.
    mutating func statusLine(_ status: HTTPStatus, date: String) {
        write("HTTP/1.1 " as StaticString)
        writeDecimal(UInt64(status.code))
        write(" " as StaticString)
        write(status.reason)
        write("\r\nDate: " as StaticString)
        write(date)
        write("\r\nServer: filedrop\r\n" as StaticString)
    }

    /// The framing fields (RFC 9112 §6.1, §6.2, §9.6) and the blank line ending the head.
    mutating func framing(_ framing: ResponseHeadSerializer.BodyFraming, closes: Bool, version: HTTPVersion) {
        switch framing {
        case .contentLength(let length):
            write("Content-Length: " as StaticString)
            writeDecimal(length)
            write("\r\n" as StaticString)
        case .chunked: field("Transfer-Encoding" as StaticString, "chunked")
        case .none, .untilClose: break
        }
        if closes {
            field("Connection" as StaticString, "close")
        } else if version == .http1_0 {
            field("Connection" as StaticString, "keep-alive")
        }
        write("\r\n" as StaticString)
    }

    mutating func copy(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(count + bytes.count <= buffer.count, "response head larger than sized")
        UnsafeMutableRawPointer(buffer.baseAddress! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    mutating func field(_ name: String, _ value: String) {
        write(name)
        write(.colon, .space)
        write(value)
        write(.carriageReturn, .lineFeed)
    }

    /// Two bytes, stored directly: the separators of every field, where a copy would cost
    /// more than the bytes.
    mutating func write(_ first: UInt8, _ second: UInt8) {
        precondition(count + 2 <= buffer.count, "response head larger than sized")
        buffer[count] = first
        buffer[count + 1] = second
        count += 2
    }

    mutating func field(_ name: StaticString, _ value: StaticString) {
        write(name)
        write(": " as StaticString)
        write(value)
        write("\r\n" as StaticString)
    }

    mutating func writeDecimal(_ value: UInt64) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            buffer[count] = 0x30 + UInt8(rest / divisor)
            count += 1
            rest %= divisor
            divisor /= 10
        }
    }
}
