/// Parses an HTTP/1.1 request line and header section (RFC 9112 §2-§5) from bytes that arrive
/// in pieces. The caller keeps unconsumed bytes and offers them again with more appended; the
/// parser remembers the lines it already parsed and how far it scanned the current one, so
/// offering a growing buffer costs linear time in total.
///
/// Strictness, chosen because a file server has no old clients to be lenient for:
/// - line endings are CRLF only; a bare LF or a bare CR anywhere is rejected
///   (RFC 9112 §2.2 allows either rejecting bare LF or accepting it; we reject it);
/// - obs-fold and whitespace before the first field line are rejected (RFC 9112 §2.2, §5.2);
/// - the request-target must be valid UTF-8 without control bytes or a fragment (`#`).
public struct HTTPHeadParser: Sendable {
    private let limits: HTTPLimits
    private var stage = Stage.requestLine
    /// Offset of the first byte of the line being scanned.
    private var lineStart = 0
    /// Offset of the next byte of the current line that has not been scanned yet.
    private var scanned = 0
    /// Offsets of the first two spaces of the request line, found while scanning it.
    private var firstSpace: Int?
    private var secondSpace: Int?
    private var requestLine: (method: HTTPMethod, target: String, shape: RequestTargetShape?, version: HTTPVersion)?
    /// Offset of the first field line; the checked fields' offsets count from there. Their
    /// bytes are copied once, when the head is complete (`FieldBytes`).
    private var fieldsStart = 0
    private var sawHost = false
    /// Set once the head failed; returned again until `reset()`.
    private var failure: HTTPError?
    /// Set once the head completed: its length. Asked again before `reset()`, the parser
    /// rebuilds the same head from what it keeps (holding a copy of the head instead cost a
    /// copy and a destruction on every request).
    private var completedLength: Int?
    /// The fields checked so far (`HTTPHeaders.addParsed`), given their bytes once complete.
    private var headers = HTTPHeaders()

    private enum Stage {
        case requestLine
        case fieldLines
    }

    public init(limits: HTTPLimits) {
        self.limits = limits
    }

    /// `buffer` always starts at the first byte of the head (the caller keeps unconsumed bytes and
    /// re-offers them with more appended). The parser remembers how far it already scanned so
    /// re-offering is not quadratic. Leading empty lines (CRLF) before the request line are skipped
    /// (RFC 9112 §2.2) and count in `length`.
    public mutating func parse(_ buffer: UnsafeRawBufferPointer) -> HeadParseResult {
        if let failure { return .failed(failure) }
        if let completedLength, let requestLine { return .complete(head(requestLine), length: completedLength) }
        do throws(HTTPError) {
            // Bytes past the limit are never looked at: a head that has not ended inside the
            // first `maxHeadSize` bytes is too large whatever follows.
            let end = min(buffer.count, limits.maxHeadSize)
            while let lineEnd = try scanLine(buffer, end: end) {
                let line = UnsafeRawBufferPointer(rebasing: buffer[lineStart..<lineEnd])
                let next = lineEnd + 2
                if try take(line, bytesAtHand: end - lineStart) {
                    guard let requestLine else { preconditionFailure("a head without a request line") }
                    let section = UnsafeRawBufferPointer(rebasing: buffer[fieldsStart..<lineStart])
                    headers.attachParsedBytes(FieldBytes.copying(section))
                    completedLength = next
                    return .complete(head(requestLine), length: next)
                }
                lineStart = next
                scanned = next
            }
            if buffer.count > limits.maxHeadSize { throw .headTooLarge }
            return .needMore
        } catch {
            failure = error
            return .failed(error)
        }
    }

    /// Ready for the next request on the connection. Nothing of the last head is kept: an
    /// idle keep-alive connection holds no buffer (keeping the field list and bytes for the
    /// next head saved an allocation per request and cost 1.2 KB per held connection).
    public mutating func reset() {
        self = HTTPHeadParser(limits: limits)
    }

    /// Scans the current line up to `end`; returns the offset of its CR when the line is
    /// complete (CRLF seen), nil when more bytes are needed.
    private mutating func scanLine(_ buffer: UnsafeRawBufferPointer, end: Int) throws(HTTPError) -> Int? {
        var index = scanned
        defer { scanned = index }
        while index < end {
            if stage == .fieldLines {
                // Field lines are checked whole once complete; here only CR and LF matter.
                index = ByteScan.firstIndex(below: .carriageReturn + 1, in: buffer, from: index, to: end)
            } else {
                // In the request line spaces matter too; the bytes skipped hold none, so all
                // they can do is make the target too long. (Control bytes stop the skip and
                // are refused by `RequestLineSyntax` once the line is complete.)
                let stop = ByteScan.firstIndex(below: .space + 1, in: buffer, from: index, to: end)
                if stop > index { try noteRequestLineRun(endingAt: stop - 1) }
                index = stop
            }
            guard index < end else { return nil }
            let byte = buffer[index]
            if byte == .carriageReturn {
                guard index + 1 < end else { return nil }
                guard buffer[index + 1] == .lineFeed else { throw lineError("bare CR") }
                return index
            }
            if byte == .lineFeed { throw lineError("bare LF line ending (CRLF required)") }
            if stage == .requestLine { try noteRequestLineByte(byte, at: index) }
            index += 1
        }
        return nil
    }

    /// Tracks the spaces of the request line so that an over-long target is refused as soon
    /// as it is longer than the limit, before the line ends (RFC 9112 §3: 414).
    @inline(__always)
    private mutating func noteRequestLineByte(_ byte: UInt8, at index: Int) throws(HTTPError) {
        guard let firstSpace else {
            if byte == .space { self.firstSpace = index }
            return
        }
        guard secondSpace == nil else { return }
        if byte == .space {
            secondSpace = index
        } else if index - firstSpace > limits.maxURILength {
            throw .uriTooLong
        }
    }

    /// `noteRequestLineByte` for a run of bytes without a space that ends at `last`.
    @inline(__always)
    private func noteRequestLineRun(endingAt last: Int) throws(HTTPError) {
        if let firstSpace, secondSpace == nil, last - firstSpace > limits.maxURILength {
            throw .uriTooLong
        }
    }

    private func lineError(_ why: String) -> HTTPError {
        stage == .requestLine ? .malformedRequestLine(why) : .malformedHeader(why)
    }

    /// Handles one complete line (without CRLF); returns true when it was the empty line
    /// that ends the header section. `bytesAtHand`: the buffer's bytes from the line on, what
    /// the rest of the head may hold.
    private mutating func take(_ line: UnsafeRawBufferPointer, bytesAtHand: Int) throws(HTTPError) -> Bool {
        switch stage {
        case .requestLine:
            // RFC 9112 §2.2: empty lines before the request line are ignored.
            if line.isEmpty { return false }
            requestLine = try RequestLineSyntax.parse(
                line,
                firstSpace: firstSpace.map { $0 - lineStart },
                secondSpace: secondSpace.map { $0 - lineStart }
            )
            stage = .fieldLines
            fieldsStart = lineStart + line.count + 2
            return false
        case .fieldLines:
            if line.isEmpty {
                // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered with 400.
                if requestLine?.version == .http1_1, !sawHost {
                    throw .malformedHeader("HTTP/1.1 request without Host")
                }
                return true
            }
            guard headers.count < limits.maxHeaderCount else { throw .tooManyHeaders }
            let field = try HTTPFieldLine.check(line)
            if field.key == HTTPFieldName.host.key {
                // RFC 9112 §3.2: more than one Host field is answered with 400.
                guard !sawHost else { throw .malformedHeader("more than one Host field") }
                sawHost = true
            }
            if headers.isEmpty {
                headers.reserveCapacity(Self.expectedFieldCount(lineBytes: line.count, bytesAtHand: bytesAtHand))
            }
            let offset = lineStart - fieldsStart
            headers.addParsed(
                nameStart: Int32(offset), valueStart: Int32(offset + field.value.lowerBound),
                valueCount: Int32(field.value.count), key: field.key)
            return false
        }
    }

    /// Room for the fields the head's bytes at hand seem to hold (about one per 40 bytes, at
    /// most 16), so the list is allocated once: wrk's one field gets a small allocation that
    /// malloc's per-thread cache serves, a browser's sixteen one list instead of five growths.
    private static func expectedFieldCount(lineBytes: Int, bytesAtHand: Int) -> Int {
        min(16, max(2, 1 + (bytesAtHand - lineBytes) / 40))
    }

    private func head(_ requestLine: (method: HTTPMethod, target: String, shape: RequestTargetShape?, version: HTTPVersion))
        -> RequestHead
    {
        RequestHead(
            method: requestLine.method, target: requestLine.target, version: requestLine.version, headers: headers,
            shape: requestLine.shape)
    }
}

/// The outcome of offering bytes to `HTTPHeadParser`.
public enum HeadParseResult: Equatable, Sendable {
    case needMore
    /// `length`: bytes of the head including the final CRLFCRLF; the body starts right after.
    case complete(RequestHead, length: Int)
    case failed(HTTPError)
}
