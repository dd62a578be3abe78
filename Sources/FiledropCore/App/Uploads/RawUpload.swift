import FiledropHTTP

/// A request body that is the file itself: `PUT /files/<name>`, `curl -T`, URLSession's
/// `uploadTask(fromFile:)`, or `POST /upload.html?name=<name>`.
final class RawUpload: RequestBodyConsumer {
    private let upload: PendingUpload
    private let format: ResponseFormat
    /// The SHA-256 the client's `Repr-Digest` (or `Digest`) says the body has.
    private let expectedSHA256: [UInt8]?
    /// The language of the HTML result page.
    private let text: PageText?

    init(upload: PendingUpload, format: ResponseFormat, expectedSHA256: [UInt8]? = nil, text: PageText? = nil) {
        self.upload = upload
        self.format = format
        self.expectedSHA256 = expectedSHA256
        self.text = text
    }

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        try upload.write(bytes)
        guard let writeback = upload.writebackPacing() else { return .accepted }
        return .paused(accepted: bytes.count, work: writeback.work, then: writeback.then)
    }

    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        let name = upload.requestedName
        let format = format
        let text = text
        let withholdsStoredNames = upload.withholdsStoredNames
        return upload.commit(expectedSHA256: expectedSHA256).map { outcome in
            var report = UploadReport(withholdsStoredNames: withholdsStoredNames)
            switch outcome {
            case .success(let stored): report.stored.append(stored)
            case .failure(let error): report.failures.append((name, error))
            }
            var response = report.response(format: format, text: text)
            // RFC 9530 §3: the digest of what was stored, for the client to compare.
            if case .success(let stored) = outcome, let sha256 = stored.sha256.flatMap(SHA256Text.bytes(hex:)) {
                response.headers.add(.reprDigest, SHA256Text.reprDigest(sha256))
            }
            return response
        }
    }

    func abort() {
        upload.discard(reason: "the request ended before the body was complete")
    }
}
