import FiledropHTTP

/// One step of `MultipartParser.parse`: how many of the offered bytes it took, and what it
/// found. Offer the rest (`bytes[consumed...]`) again until the event is `.needMore`.
public struct MultipartStep: Equatable, Sendable {
    public var consumed: Int
    public var event: MultipartEvent

    public init(consumed: Int, event: MultipartEvent) {
        self.consumed = consumed
        self.event = event
    }
}

/// What the multipart parser found. Payload arrives as `.data` ranges into the buffer just
/// offered (zero-copy) and, rarely, as `.dataFromTail` when bytes the parser held back
/// because they looked like the start of a delimiter turned out to be payload after all.
public enum MultipartEvent: Equatable, Sendable {
    /// Every offered byte was consumed; offer more (or call `finish()` at the end of the body).
    case needMore
    /// The header section of a new part, parsed.
    case partBegan(PartHead)
    /// Payload of the current part: a range inside the buffer passed to this `parse` call.
    case data(Range<Int>)
    /// Payload of the current part that the parser had held back (shorter than the delimiter).
    case dataFromTail([UInt8])
    /// The current part's payload is complete.
    case partEnded
    /// The closing delimiter `--boundary--` was seen; anything after it (the epilogue) is ignored.
    case end
    /// The body is not acceptable multipart/form-data; the parser stays failed.
    case failed(HTTPError)
}

/// The parsed header section of one part (RFC 7578 §4.2, §4.4).
public struct PartHead: Equatable, Sendable {
    public var headers: HTTPHeaders
    /// The form field name from `Content-Disposition` (`file`, `files[]`, `relativePath`).
    public var name: String?
    /// The client's file name, decoded (see `ContentDisposition`); nil for a plain form field.
    public var filename: String?
    /// The part's `Content-Type` value as sent, nil when absent (RFC 7578 §4.4: text/plain).
    public var contentType: String?

    /// A part with a `filename` parameter is a file, even when the name is empty.
    public var isFile: Bool { filename != nil }

    public init(headers: HTTPHeaders, name: String?, filename: String?, contentType: String?) {
        self.headers = headers
        self.name = name
        self.filename = filename
        self.contentType = contentType
    }
}

/// Bounds on what a multipart body may make the parser hold or count.
public struct MultipartLimits: Sendable, Equatable {
    /// Bytes of one part's header section, including the blank line that ends it.
    public var maxPartHeadSize = 8 * 1024
    /// Header fields in one part.
    public var maxPartHeaderCount = 32
    /// Parts in one body.
    public var maxParts = 10_000
    /// Payload bytes of a part without a file name (a form field such as `relativePath`).
    public var maxFieldSize = 64 * 1024

    public init() {}
}
