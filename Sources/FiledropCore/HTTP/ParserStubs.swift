// Temporary stand-ins until the parsers branch lands.
public enum HeadParseResult: Equatable, Sendable {
    case needMore
    case complete(RequestHead, length: Int)
    case failed(HTTPError)
}

public struct HTTPHeadParser: Sendable {
    let limits: HTTPLimits
    public init(limits: HTTPLimits) { self.limits = limits }
    public mutating func reset() {}
    public mutating func parse(_ buffer: UnsafeRawBufferPointer) -> HeadParseResult {
        let bytes = Array(buffer)
        guard bytes.count >= 4 else { return .needMore }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i+1] == 10 && bytes[i+2] == 13 && bytes[i+3] == 10 {
            let text = String(decoding: bytes[0..<i], as: UTF8.self)
            let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
            let parts = lines[0].split(separator: " ")
            guard parts.count == 3 else { return .failed(.malformedRequestLine("x")) }
            var headers = HTTPHeaders()
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { return .failed(.malformedHeader("x")) }
                headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingOWS())
            }
            let version: HTTPVersion = parts[2] == "HTTP/1.0" ? .http1_0 : .http1_1
            return .complete(RequestHead(method: HTTPMethod(token: String(parts[0])), target: String(parts[1]), version: version, headers: headers), length: i + 4)
        }
        return bytes.count > limits.maxHeadSize ? .failed(.headTooLarge) : .needMore
    }
}

extension BodyFraming {
    public static func of(_ head: RequestHead) throws(HTTPError) -> (framing: BodyFraming, closeAfterResponse: Bool) {
        if head.headers.contains("transfer-encoding") { return (.chunked, head.headers.contains("content-length")) }
        if let cl = head.headers["content-length"] {
            guard let n = UInt64(cl) else { throw .invalidContentLength }
            return (.length(n), false)
        }
        return (.none, false)
    }
}

public struct BodyDecodeStep: Equatable, Sendable {
    public var consumed: Int
    public var data: Range<Int>?
    public var event: BodyDecodeEvent
}
public enum BodyDecodeEvent: Equatable, Sendable {
    case needMore
    case end(trailers: HTTPHeaders)
    case failed(HTTPError)
}
public struct BodyDecoder: Sendable {
    var remaining: UInt64
    public init(framing: BodyFraming, limits: HTTPLimits) {
        if case .length(let n) = framing { remaining = n } else { remaining = 0 }
    }
    public mutating func decode(_ bytes: UnsafeRawBufferPointer) -> BodyDecodeStep {
        if remaining == 0 { return BodyDecodeStep(consumed: 0, data: nil, event: .end(trailers: HTTPHeaders())) }
        let n = Int(min(UInt64(bytes.count), remaining))
        remaining -= UInt64(n)
        return BodyDecodeStep(consumed: n, data: 0..<n, event: remaining == 0 ? .end(trailers: HTTPHeaders()) : .needMore)
    }
}
