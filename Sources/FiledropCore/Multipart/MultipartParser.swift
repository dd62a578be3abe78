import FiledropHTTP

/// A streaming multipart/form-data parser (RFC 7578, RFC 2046 §5.1).
///
/// Fully incremental: every call consumes the bytes it can and the parser keeps what it
/// must remember itself, which is at most a part's header section (`maxPartHeadSize`) or
/// fewer bytes than the delimiter (a possible delimiter start at the end of a buffer).
/// Payload is handed out as ranges into the caller's buffer, so a file is written to disk
/// straight from the receive buffer.
///
/// Use: offer the bytes, handle the event, offer `bytes[step.consumed...]` again until the
/// event is `.needMore`, then read more from the socket. When the request body ends, call
/// `finish()`.
///
/// ```
/// --boundary\r\n                      first delimiter (the preamble before it is ignored)
/// Content-Disposition: ...\r\n\r\n    part head      -> .partBegan
/// payload                             part body      -> .data / .dataFromTail
/// \r\n--boundary\r\n                  delimiter      -> .partEnded, next part
/// \r\n--boundary--                    close delimiter -> .partEnded, .end (epilogue ignored)
/// ```
public struct MultipartParser: Sendable {
    private enum State: Sendable {
        /// Before the first delimiter: bytes are discarded.
        case preamble
        /// Just after `--boundary`: `--` closes the body, transport padding + CRLF opens a part.
        case afterDelimiter
        /// After `--boundary-`: needs the second `-`.
        case closingDash
        /// RFC 2046 §5.1.1 transport padding (LWSP) before the CRLF of a delimiter line.
        case padding
        /// After the padding's CR: needs LF.
        case paddingLF
        case head
        case body
        /// After the close delimiter: bytes are discarded.
        case epilogue
        case failed(HTTPError)
    }

    private let search: DelimiterSearch
    private let limits: MultipartLimits
    private var state: State
    /// A proper prefix of the delimiter seen at the end of an earlier buffer (preamble/body).
    private var held: [UInt8]
    /// The part head being collected, after a virtual leading CRLF so that the search for
    /// the blank line (CRLF CRLF) also finds it when the part has no headers at all.
    private var head: [UInt8] = []
    private var partCount = 0
    /// Payload bytes of the current part, counted only for form fields (no file name).
    private var fieldBytes = 0
    private var currentPartIsField = false
    private var currentFieldName: String?

    /// `boundary` is the `boundary` parameter of the request's Content-Type. An invalid one
    /// (RFC 2046 §5.1.1, see `MediaType.isValidBoundary`) makes the first `parse` fail.
    public init(boundary: String, limits: MultipartLimits = MultipartLimits()) {
        self.search = DelimiterSearch(boundary: boundary)
        self.limits = limits
        // The first delimiter may come at the very start, without its CRLF: pretend the
        // CRLF was already seen.
        self.held = [0x0D, 0x0A]
        self.held.reserveCapacity(search.delimiter.count)
        self.state =
            MediaType.isValidBoundary(boundary)
            ? .preamble
            : .failed(.badRequest("The multipart boundary in the Content-Type header is not valid."))
    }

    /// Consumes a prefix of `bytes` and reports what it found; `.data` ranges index `bytes`.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> MultipartStep {
        var offset = 0
        while true {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            switch state {
            case .failed(let error):
                return MultipartStep(consumed: offset, event: .failed(error))

            case .preamble, .body:
                let inBody = if case .body = state { true } else { false }
                if !held.isEmpty {
                    switch search.continuation(ofPrefix: held.count, in: rest) {
                    case .completes(let count):
                        held.removeAll(keepingCapacity: true)
                        offset += count
                        state = .afterDelimiter
                        if inBody { return MultipartStep(consumed: offset, event: .partEnded) }
                    case .stillPartial:
                        held.append(contentsOf: rest)
                        return MultipartStep(consumed: bytes.count, event: .needMore)
                    case .broken:
                        let payload = held
                        held.removeAll(keepingCapacity: true)
                        if inBody {
                            if let error = countFieldBytes(payload.count) { return fail(error, at: offset) }
                            return MultipartStep(consumed: offset, event: .dataFromTail(payload))
                        }
                    }
                    continue
                }
                guard !rest.isEmpty else { return MultipartStep(consumed: offset, event: .needMore) }
                let payloadEnd: Int
                switch search.firstMatch(in: rest) {
                case .delimiter(at: 0):
                    offset += search.delimiter.count
                    state = .afterDelimiter
                    if inBody { return MultipartStep(consumed: offset, event: .partEnded) }
                    continue
                case .delimiter(let index):
                    payloadEnd = index
                case .partial(at: 0):
                    held.append(contentsOf: rest)
                    return MultipartStep(consumed: bytes.count, event: .needMore)
                case .partial(let index):
                    payloadEnd = index
                case .none:
                    payloadEnd = rest.count
                }
                // Payload up to the (possible) delimiter; the delimiter is handled next call.
                guard inBody else {
                    offset += payloadEnd
                    continue
                }
                if let error = countFieldBytes(payloadEnd) { return fail(error, at: offset) }
                return MultipartStep(consumed: offset + payloadEnd, event: .data(offset..<offset + payloadEnd))

            case .afterDelimiter:
                guard let byte = rest.first else { return MultipartStep(consumed: offset, event: .needMore) }
                if byte == UInt8(ascii: "-") {
                    offset += 1
                    state = .closingDash
                } else {
                    state = .padding
                }

            case .closingDash:
                guard let byte = rest.first else { return MultipartStep(consumed: offset, event: .needMore) }
                guard byte == UInt8(ascii: "-") else {
                    return fail(
                        .badRequest("A multipart boundary is followed by a single \"-\" instead of \"--\" or a line break."),
                        at: offset)
                }
                state = .epilogue
                return MultipartStep(consumed: offset + 1, event: .end)

            case .padding:
                let spaces = rest.prefix { HeaderParameters.isWhitespace($0) }.count
                offset += spaces
                guard spaces < rest.count else { return MultipartStep(consumed: offset, event: .needMore) }
                guard rest[spaces] == 0x0D else {
                    return fail(
                        .badRequest(
                            "A multipart boundary line has unexpected characters after the boundary; is the boundary in Content-Type right?"
                        ), at: offset)
                }
                offset += 1
                state = .paddingLF

            case .paddingLF:
                guard let byte = rest.first else { return MultipartStep(consumed: offset, event: .needMore) }
                guard byte == 0x0A else {
                    return fail(.badRequest("A multipart boundary line ends with CR but no LF."), at: offset)
                }
                offset += 1
                head.removeAll(keepingCapacity: true)
                head.append(contentsOf: [0x0D, 0x0A])
                state = .head

            case .head:
                return parseHead(rest, offset: offset)

            case .epilogue:
                return MultipartStep(consumed: bytes.count, event: .needMore)
            }
        }
    }

    /// Call when the request body has ended. Nil when the body was complete; otherwise the
    /// failure to answer with (the close delimiter never came, or no part was found at all).
    public mutating func finish() -> MultipartEvent? {
        switch state {
        case .epilogue:
            return nil
        case .failed(let error):
            return .failed(error)
        case .preamble:
            let error = HTTPError.badRequest(
                "The request body contains no part with the boundary named in its Content-Type header.")
            state = .failed(error)
            return .failed(error)
        default:
            let error = HTTPError.badRequest("The upload ended before the end of the form data; it was probably interrupted.")
            state = .failed(error)
            return .failed(error)
        }
    }

    private mutating func parseHead(_ rest: UnsafeRawBufferPointer, offset: Int) -> MultipartStep {
        let previous = head.count
        // Take at most one byte more than the limit allows, so memory stays bounded.
        let room = limits.maxPartHeadSize + 1 - (previous - 2)
        let taken = min(rest.count, room)
        head.append(contentsOf: rest.prefix(taken))
        guard let blankLine = Self.indexOfBlankLine(in: head, from: max(0, previous - 3)) else {
            if head.count - 2 > limits.maxPartHeadSize { return fail(partHeadTooLarge, at: offset) }
            return MultipartStep(consumed: offset + taken, event: .needMore)
        }
        // The section includes the CRLF CRLF that ends it, minus the virtual leading CRLF.
        guard blankLine + 2 <= limits.maxPartHeadSize else { return fail(partHeadTooLarge, at: offset) }
        let consumed = offset + blankLine + 4 - previous
        let block = blankLine >= 2 ? head[2..<blankLine] : []
        switch PartHeadParser.parse(block, limits: limits) {
        case .failure(let error):
            return fail(error, at: consumed)
        case .success(let part):
            partCount += 1
            guard partCount <= limits.maxParts else {
                return fail(.badRequest("The form has more than \(limits.maxParts) parts."), at: consumed)
            }
            fieldBytes = 0
            currentPartIsField = !part.isFile
            currentFieldName = part.name
            state = .body
            return MultipartStep(consumed: consumed, event: .partBegan(part))
        }
    }

    private var partHeadTooLarge: HTTPError {
        .badRequest("A part of the form has headers larger than \(ByteCount.format(UInt64(limits.maxPartHeadSize))).")
    }

    /// Counts payload of a form field against `maxFieldSize`; file parts are not limited here.
    private mutating func countFieldBytes(_ count: Int) -> HTTPError? {
        guard currentPartIsField else { return nil }
        fieldBytes += count
        guard fieldBytes > limits.maxFieldSize else { return nil }
        let name = currentFieldName.map(FileNamePolicy.quotedForMessage) ?? "without a name"
        return .badRequest("The form field \(name) is larger than \(ByteCount.format(UInt64(limits.maxFieldSize))).")
    }

    private mutating func fail(_ error: HTTPError, at offset: Int) -> MultipartStep {
        state = .failed(error)
        return MultipartStep(consumed: offset, event: .failed(error))
    }

    private static func indexOfBlankLine(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A {
                return index
            }
            index += 1
        }
        return nil
    }
}
