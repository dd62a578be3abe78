/// A `multipart/form-data` upload (browser forms, `curl -F`, the page's XHR): every file
/// part streams into its own pending upload; form fields named `relativePath` or `path`
/// place the next file in a subfolder (folder uploads send `webkitRelativePath` that way).
///
/// A problem with one file (its name, its size, a collision under `reject`) is reported for
/// that file and the others are still saved; a broken body or a full disk ends the request.
final class MultipartUpload: RequestBodyConsumer {
    private var parser: MultipartParser
    private let store: UploadStore
    private let baseDirectory: StoragePath
    private let format: ResponseFormat
    private let client: String
    private let maxRequestSize: UInt64?
    private var received: UInt64 = 0

    private var current: PendingUpload?
    private var field: (name: String, bytes: [UInt8])?
    private var nextRelativePath: String?
    private var report = UploadReport()

    /// Field names whose value is the relative path of the file part that follows.
    private static let relativePathFields: Set<String> = ["relativePath", "relativepath", "path", "webkitRelativePath"]

    init(boundary: String, store: UploadStore, baseDirectory: StoragePath, format: ResponseFormat, client: String, maxRequestSize: UInt64?) {
        self.parser = MultipartParser(boundary: boundary)
        self.store = store
        self.baseDirectory = baseDirectory
        self.format = format
        self.client = client
        self.maxRequestSize = maxRequestSize
    }

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) {
        received += UInt64(bytes.count)
        if let maxRequestSize, received > maxRequestSize {
            throw .contentTooLarge(limit: maxRequestSize)
        }
        var offset = 0
        while true {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let step = parser.parse(rest)
            offset += step.consumed
            switch step.event {
            case .needMore:
                if step.consumed == 0 || offset == bytes.count { return }
            case .partBegan(let head):
                try begin(head)
            case .data(let range):
                try deliver(UnsafeRawBufferPointer(rebasing: rest[range]))
            case .dataFromTail(let tail):
                try deliverTail(tail)
            case .partEnded:
                try endPart()
            case .end:
                return
            case .failed(let error):
                throw error
            }
        }
    }

    func finish(trailers: HTTPHeaders) -> Response {
        if case .failed(let error)? = parser.finish() {
            abort()
            return .error(error, format: format)
        }
        return report.response(format: format)
    }

    func abort() {
        current?.discard(reason: "the request ended before the file was complete")
        current = nil
    }

    private func begin(_ head: PartHead) throws(HTTPError) {
        field = nil
        guard let filename = head.filename else {
            field = (head.name ?? "", [])
            return
        }
        let relativePath = nextRelativePath
        nextRelativePath = nil
        // A browser sends an empty part with `filename=""` when no file was chosen.
        if filename.isEmpty && relativePath == nil {
            return
        }
        do {
            let (directory, name) = try placement(filename: filename, relativePath: relativePath)
            current = try store.begin(directory: directory, clientName: name, expectedSize: nil, client: client,
                                      checksummed: format == .json)
        } catch {
            try recordFailure(name: relativePath ?? filename, error)
        }
    }

    private func deliver(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) {
        if let upload = current {
            do {
                try upload.write(bytes)
            } catch {
                current = nil
                try recordFailure(name: upload.requestedName, error)
            }
        } else if field != nil {
            field?.bytes.append(contentsOf: bytes)
        }
    }

    /// `Array.withUnsafeBytes` rethrows untyped errors; keep the typed error here.
    private func deliverTail(_ tail: [UInt8]) throws(HTTPError) {
        var failure: HTTPError?
        tail.withUnsafeBytes { raw in
            do throws(HTTPError) { try deliver(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func endPart() throws(HTTPError) {
        if let upload = current {
            current = nil
            do {
                report.stored.append(try upload.commit())
            } catch {
                try recordFailure(name: upload.requestedName, error)
            }
        } else if let field, Self.relativePathFields.contains(field.name) {
            nextRelativePath = String(decoding: field.bytes, as: UTF8.self)
        }
        field = nil
    }

    /// Where a file goes: the relative path (folder upload) wins over a path inside the
    /// filename; either way every component passes the name policy.
    private func placement(filename: String, relativePath: String?) throws(HTTPError) -> (StoragePath, String) {
        let pathText = relativePath ?? filename
        let separators = pathText.contains("/") || (relativePath != nil && pathText.contains("\\"))
        guard separators else { return (baseDirectory, filename) }
        let path = try store.names.storagePath(fromRelative: pathText)
        guard let name = path.name else { throw .badRequest("The file has no name.") }
        return (StoragePath(checkedComponents: baseDirectory.components + path.parent.components), name)
    }

    /// A full disk ends the whole request; anything else fails this file only.
    private func recordFailure(name: String, _ error: HTTPError) throws(HTTPError) {
        if case .insufficientStorage = error { throw error }
        report.failures.append((name, error))
    }
}
