/// A request body that is the file itself: `PUT /files/<name>`, `curl -T`, URLSession's
/// `uploadTask(fromFile:)`, or `POST /upload.html?name=<name>`.
final class RawUpload: RequestBodyConsumer {
    private let upload: PendingUpload
    private let format: ResponseFormat

    init(upload: PendingUpload, format: ResponseFormat) {
        self.upload = upload
        self.format = format
    }

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) {
        try upload.write(bytes)
    }

    func finish(trailers: HTTPHeaders) -> Response {
        var report = UploadReport()
        do {
            report.stored.append(try upload.commit())
        } catch {
            report.failures.append((upload.requestedName, error))
        }
        return report.response(format: format)
    }

    func abort() {
        upload.discard(reason: "the request ended before the body was complete")
    }
}
