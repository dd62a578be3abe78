/// A request body that is the file itself: `PUT /files/<name>`, `curl -T`, URLSession's
/// `uploadTask(fromFile:)`, or `POST /upload.html?name=<name>`.
final class RawUpload: RequestBodyConsumer {
    private let upload: PendingUpload
    private let format: ResponseFormat
    /// The language of the HTML result page.
    private let text: PageText?

    init(upload: PendingUpload, format: ResponseFormat, text: PageText? = nil) {
        self.upload = upload
        self.format = format
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
        return upload.commit().map { outcome in
            var report = UploadReport(withholdsStoredNames: withholdsStoredNames)
            switch outcome {
            case .success(let stored): report.stored.append(stored)
            case .failure(let error): report.failures.append((name, error))
            }
            return report.response(format: format, text: text)
        }
    }

    func abort() {
        upload.discard(reason: "the request ended before the body was complete")
    }
}
