/// The chunked transfer coding (RFC 9112 §7.1) as a byte-at-a-time state machine over the
/// framing, with chunk data handed out as ranges of the offered bytes (never copied).
///
/// ```
/// chunked-body = *chunk last-chunk trailer-section CRLF
/// chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
/// chunk-ext    = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
/// ```
/// Strictness: the size is 1 to 16 hex digits with nothing before it; whitespace after the
/// size or inside extensions is accepted only where the grammar puts BWS (before `;` / `=`
/// and after them), never right before the CRLF. Extensions are checked and ignored. Line
/// endings are CRLF only: a bare CR or bare LF is malformed. Memory is bounded by
/// `maxTrailerSize` (one trailer line is buffered at a time).
struct ChunkedDecoder: Sendable {
    private let limits: HTTPLimits
    private var state = State.sizeStart
    /// Bytes of the current chunk-size line so far (without CRLF), bounded by `maxChunkLineSize`.
    private var sizeLineLength = 0
    private var sizeDigits = 0
    private var chunkSize: UInt64 = 0
    /// Bytes of the trailer section so far (CRLFs included), bounded by `maxTrailerSize`.
    private var trailerBytes = 0
    private var trailerLine: [UInt8] = []
    private var trailers = HTTPHeaders()

    private enum State: Sendable {
        case sizeStart
        case size
        /// After the size, an extension name or value: BWS then `;` (or `=` after a name), or CRLF.
        case afterItem(equalsAllowed: Bool, sawWhitespace: Bool)
        case beforeExtensionName
        case extensionName
        case beforeExtensionValue
        case extensionToken
        case extensionQuoted
        case extensionQuotedEscape
        case sizeLineFeed
        case data(remaining: UInt64)
        case dataCarriageReturn
        case dataLineFeed
        case trailer
        case trailerLineFeed
        case done
        case failed(HTTPError)
    }

    init(limits: HTTPLimits) {
        self.limits = limits
    }

    var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Payload bytes of the current chunk not read yet (0 between chunks): the sender has
    /// promised them, so they will come before the body can end.
    var chunkBytesRemaining: UInt64 {
        if case .data(let remaining) = state { return remaining }
        return 0
    }

    mutating func decode(_ bytes: UnsafeRawBufferPointer) -> BodyDecodeStep {
        switch state {
        case .done: return BodyDecodeStep(consumed: 0, data: nil, event: .end(trailers: trailers))
        case .failed(let error): return BodyDecodeStep(consumed: 0, data: nil, event: .failed(error))
        default: break
        }
        var index = 0
        do throws(HTTPError) {
            while index < bytes.count {
                if case .data(let remaining) = state {
                    let take = Int(clamping: min(remaining, UInt64(bytes.count - index)))
                    state = remaining == UInt64(take) ? .dataCarriageReturn : .data(remaining: remaining - UInt64(take))
                    return BodyDecodeStep(consumed: index + take, data: index..<(index + take), event: .needMore)
                }
                try step(bytes[index])
                index += 1
                if case .done = state {
                    return BodyDecodeStep(consumed: index, data: nil, event: .end(trailers: trailers))
                }
            }
            return BodyDecodeStep(consumed: index, data: nil, event: .needMore)
        } catch {
            state = .failed(error)
            return BodyDecodeStep(consumed: index, data: nil, event: .failed(error))
        }
    }

    /// Advances the framing state by one byte (never called in `.data`).
    private mutating func step(_ byte: UInt8) throws(HTTPError) {
        switch state {
        case .sizeStart, .size, .afterItem, .beforeExtensionName, .extensionName,
            .beforeExtensionValue, .extensionToken, .extensionQuoted, .extensionQuotedEscape:
            if byte == .lineFeed { throw .malformedChunk("bare LF in the chunk size line") }
            if byte != .carriageReturn {
                sizeLineLength += 1
                guard sizeLineLength <= limits.maxChunkLineSize else {
                    throw .malformedChunk("chunk size line longer than \(limits.maxChunkLineSize) bytes")
                }
            }
            try stepSizeLine(byte)
        case .sizeLineFeed:
            guard byte == .lineFeed else { throw .malformedChunk("bare CR in the chunk size line") }
            sizeLineLength = 0
            sizeDigits = 0
            state = chunkSize == 0 ? .trailer : .data(remaining: chunkSize)
            chunkSize = 0
        case .dataCarriageReturn:
            guard byte == .carriageReturn else { throw .malformedChunk("chunk data not followed by CRLF") }
            state = .dataLineFeed
        case .dataLineFeed:
            guard byte == .lineFeed else { throw .malformedChunk("chunk data not followed by CRLF") }
            state = .sizeStart
        case .trailer, .trailerLineFeed:
            try stepTrailer(byte)
        case .data, .done, .failed:
            preconditionFailure("ChunkedDecoder.step called in a terminal or data state")
        }
    }

    /// `chunk-size [ chunk-ext ] CRLF`: the size in hex, extensions validated and ignored.
    private mutating func stepSizeLine(_ byte: UInt8) throws(HTTPError) {
        switch state {
        case .sizeStart, .size:
            if let digit = hexValue(byte) {
                sizeDigits += 1
                guard sizeDigits <= 16 else { throw .malformedChunk("chunk size has more than 16 hex digits") }
                chunkSize = chunkSize << 4 | UInt64(digit)
                state = .size
            } else if case .sizeStart = state {
                throw .malformedChunk("chunk size missing")
            } else {
                state = .afterItem(equalsAllowed: false, sawWhitespace: false)
                try stepSizeLine(byte)
            }
        case .afterItem(let equalsAllowed, let sawWhitespace):
            switch byte {
            case .space, .tab: state = .afterItem(equalsAllowed: equalsAllowed, sawWhitespace: true)
            case .semicolon: state = .beforeExtensionName
            case UInt8(ascii: "=") where equalsAllowed: state = .beforeExtensionValue
            case .carriageReturn where !sawWhitespace: state = .sizeLineFeed
            default: throw .malformedChunk("unexpected byte in the chunk size line")
            }
        case .beforeExtensionName:
            if byte == .space || byte == .tab { return }
            guard isTokenByte(byte) else { throw .malformedChunk("chunk extension without a name") }
            state = .extensionName
        case .extensionName:
            if isTokenByte(byte) { return }
            state = .afterItem(equalsAllowed: true, sawWhitespace: false)
            try stepSizeLine(byte)
        case .beforeExtensionValue:
            if byte == .space || byte == .tab { return }
            if byte == UInt8(ascii: "\"") {
                state = .extensionQuoted
            } else if isTokenByte(byte) {
                state = .extensionToken
            } else {
                throw .malformedChunk("chunk extension without a value after \"=\"")
            }
        case .extensionToken:
            if isTokenByte(byte) { return }
            state = .afterItem(equalsAllowed: false, sawWhitespace: false)
            try stepSizeLine(byte)
        case .extensionQuoted:
            // RFC 9110 §5.6.4: qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text.
            switch byte {
            case UInt8(ascii: "\""): state = .afterItem(equalsAllowed: false, sawWhitespace: false)
            case UInt8(ascii: "\\"): state = .extensionQuotedEscape
            case _ where isFieldValueByte(byte): return
            default: throw .malformedChunk("control character in a quoted chunk extension")
            }
        case .extensionQuotedEscape:
            guard isFieldValueByte(byte) else { throw .malformedChunk("control character in a quoted chunk extension") }
            state = .extensionQuoted
        default:
            preconditionFailure("stepSizeLine outside the size line")
        }
    }

    /// `trailer-section = *( field-line CRLF )` then CRLF; fields use the head's rules.
    private mutating func stepTrailer(_ byte: UInt8) throws(HTTPError) {
        trailerBytes += 1
        guard trailerBytes <= limits.maxTrailerSize else {
            throw .malformedChunk("trailer section larger than \(limits.maxTrailerSize) bytes")
        }
        if case .trailerLineFeed = state {
            guard byte == .lineFeed else { throw .malformedChunk("bare CR in the trailer section") }
            if trailerLine.isEmpty {
                state = .done
                return
            }
            guard trailers.count < limits.maxHeaderCount else { throw .tooManyHeaders }
            let parsed = trailerLine.withUnsafeBytes { line in
                Result { () throws(HTTPError) in try HTTPFieldLine.parse(line) }
            }
            let field = try parsed.get()
            trailers.add(name: field.name, value: field.value, key: field.key)
            trailerLine.removeAll(keepingCapacity: true)
            state = .trailer
            return
        }
        switch byte {
        case .carriageReturn: state = .trailerLineFeed
        case .lineFeed: throw .malformedChunk("bare LF in the trailer section")
        default: trailerLine.append(byte)
        }
    }

    private func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
