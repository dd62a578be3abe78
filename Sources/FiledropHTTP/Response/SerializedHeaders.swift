/// Header fields together with the bytes `ResponseHeadSerializer` writes for them, made
/// once for fields sent again and again (the headers of a download, per file version).
/// A `Response` built from them hands the bytes to the serializer, which then copies one
/// block instead of writing each field; the pair is only ever made here, so the bytes
/// always belong to these fields.
public struct SerializedHeaders: Sendable {
    public let headers: HTTPHeaders
    /// `ResponseHeadSerializer.fieldBlock(of: headers)`.
    public let fieldBlock: [UInt8]

    public init(_ headers: HTTPHeaders) {
        self.headers = headers
        self.fieldBlock = ResponseHeadSerializer.fieldBlock(of: headers)
    }
}
