/// A response as a value: handlers return it, the connection serializes it.
public struct Response: Sendable {
    public var status: HTTPStatus
    /// Any change drops `fieldBlock`, which then no longer describes them.
    public var headers: HTTPHeaders {
        didSet { fieldBlock = nil }
    }
    public var body: ResponseBody
    /// `headers` as they go on the wire (`ResponseHeadSerializer.fieldBlock(of:)`), when they
    /// came ready with their bytes (`SerializedHeaders`): the serializer copies these instead
    /// of writing the fields one by one. Valid for the exact `headers` it came with only.
    public private(set) var fieldBlock: [UInt8]?
    /// Why an error response refuses its request, as the application labels it for its
    /// metrics; nil leaves the reason to the status.
    public var refusal: RequestLabel?

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
        self.fieldBlock = nil
    }

    /// A response with headers serialized ahead (a download's, kept per file version).
    public init(status: HTTPStatus, headers: SerializedHeaders, body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers.headers
        self.body = body
        self.fieldBlock = headers.fieldBlock
    }
}

/// Where the bytes of a response come from.
public enum ResponseBody: Sendable {
    case empty
    case bytes([UInt8])
    /// A region of an open file, sent with sendfile(2).
    case file(FileRegion)
    /// Bytes produced on the fly (archives, multipart/byteranges); length unknown ahead.
    /// Carried as `UnsafeTransfer`: the source goes from the handler that makes it to its
    /// connection's loop, then to one worker per chunk, each hand-over ordered by the
    /// loop's `execute` and the worker pool's queue, so one thread at a time pulls from it.
    case stream(UnsafeTransfer<any ResponseBodySource>)

    /// The exact length when known ahead (Content-Length), nil for streams.
    public var knownLength: UInt64? {
        switch self {
        case .empty: 0
        case .bytes(let bytes): UInt64(bytes.count)
        case .file(let region): region.length
        case .stream(let source): source.wrappedValue.knownLength
        }
    }
}

/// An open file owned by the I/O layer; closing happens when the last reference goes.
public protocol OpenFileHandle: AnyObject, Sendable {
    var descriptor: Int32 { get }
    /// The whole file, when it is held in memory instead of behind a descriptor (a small
    /// file cache): the writer then copies these bytes and sends no file.
    var bytesInMemory: [UInt8]? { get }
}

extension OpenFileHandle {
    public var bytesInMemory: [UInt8]? { nil }
}

extension FileRegion {
    /// The region's bytes, from a file held in memory (`bytesInMemory`); nil for a descriptor.
    public var bytesInMemory: ArraySlice<UInt8>? {
        file.bytesInMemory.map { $0[Int(offset)..<Int(offset + length)] }
    }
}

/// `length` bytes of `file` starting at `offset`.
public struct FileRegion: Sendable {
    public var file: any OpenFileHandle
    public var offset: UInt64
    public var length: UInt64

    public init(file: any OpenFileHandle, offset: UInt64, length: UInt64) {
        self.file = file
        self.offset = offset
        self.length = length
    }
}

/// A piece of a streamed body.
public enum ResponseChunk: Sendable {
    case bytes([UInt8])
    case file(FileRegion)
}

/// Produces a response body piece by piece so memory stays flat; nil means the end.
/// Called on a worker thread (a chunk may read files or walk a folder), one call at a time.
/// Not `Sendable`: `ResponseBody.stream` carries it across threads and says why that is safe.
public protocol ResponseBodySource: AnyObject {
    var knownLength: UInt64? { get }
    func nextChunk() throws -> ResponseChunk?
}
