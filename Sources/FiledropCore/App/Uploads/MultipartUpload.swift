import FiledropHTTP

/// A `multipart/form-data` upload (browser forms, `curl -F`, the page's XHR): every file
/// part streams into its own pending upload; form fields named `relativePath` or `path`
/// place the next file in a subfolder (folder uploads send `webkitRelativePath` that way).
///
/// A problem with one file (its name, its size, a collision under `reject`) is reported for
/// that file and the others are still saved; a broken body or a full disk ends the request.
/// Files stored before that stay stored (complete and published), and the error's answer
/// lists them with the part that was refused (`failureResponse`), so a client does not send
/// them again.
final class MultipartUpload: RequestBodyConsumer {
    private var parser: MultipartParser
    private let store: UploadStore
    private let baseDirectory: StoragePath
    private let format: ResponseFormat
    /// The language of the HTML result page.
    private let text: PageText?
    private let client: String
    private let maxRequestSize: UInt64?
    private var received: UInt64 = 0

    private var current: PendingUpload?
    private var field: (name: String, bytes: [UInt8])?
    private var nextRelativePath: String?
    private var report: UploadReport
    /// Parts whose head was read, and whether the last of them is still arriving: which part
    /// an error stops the form at.
    private var partsBegun = 0
    private var inPart = false

    /// Blocking work the upload waits for, and what to do on the loop once it ran.
    typealias Pause = (work: BlockingWork, then: () throws(HTTPError) -> Void)

    /// Field names whose value is the relative path of the file part that follows.
    private static let relativePathFields: Set<String> = ["relativePath", "relativepath", "path", "webkitRelativePath"]

    init(
        boundary: String, store: UploadStore, baseDirectory: StoragePath, format: ResponseFormat, text: PageText? = nil,
        client: String,
        maxRequestSize: UInt64?
    ) {
        report = UploadReport(withholdsStoredNames: store.withholdsStoredNames)
        self.parser = MultipartParser(boundary: boundary)
        self.store = store
        self.baseDirectory = baseDirectory
        self.format = format
        self.text = text
        self.client = client
        self.maxRequestSize = maxRequestSize
    }

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        if let maxRequestSize, received + UInt64(bytes.count) > maxRequestSize {
            throw .contentTooLarge(limit: maxRequestSize)
        }
        var offset = 0
        while true {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let step = parser.parse(rest)
            offset += step.consumed
            var pause: (work: BlockingWork, then: () throws(HTTPError) -> Void)?
            switch step.event {
            case .needMore:
                if step.consumed == 0 || offset == bytes.count {
                    received += UInt64(bytes.count)
                    return .accepted
                }
            case .partBegan(let head):
                partsBegun += 1
                inPart = true
                pause = try begin(head)
            case .data(let range):
                pause = try deliver(UnsafeRawBufferPointer(rebasing: rest[range]))
            case .dataFromTail(let tail):
                pause = try deliverTail(tail)
            case .partEnded:
                inPart = false
                pause = try endPart()
            case .end:
                received += UInt64(bytes.count)
                return .accepted
            case .failed(let error):
                throw error
            }
            if let pause {
                received += UInt64(offset)
                return .paused(accepted: offset, work: pause.work, then: pause.then)
            }
        }
    }

    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        if case .failed(let error)? = parser.finish() {
            abort()
            return .ready(failureResponse(for: error) ?? .error(error, format: format, text: text))
        }
        return .ready(report.response(format: format, text: text))
    }

    func abort() {
        current?.discard(reason: "the request ended before the file was complete")
        current = nil
    }

    /// The files stored so far and the part `error` stopped the form at; nil when no part
    /// was stored or refused before it.
    func failureResponse(for error: HTTPError) -> Response? {
        var stoppedReport = report
        stoppedReport.stopped = (inPart ? partsBegun : partsBegun + 1, error)
        return stoppedReport.stoppedResponse(format: format, text: text)
    }

    /// A part starts: a form field is kept in memory; a file gets its invisible file, opened
    /// by a worker (it may make folders) while the body waits.
    private func begin(_ head: PartHead) throws(HTTPError) -> Pause? {
        field = nil
        guard let filename = head.filename else {
            field = (head.name ?? "", [])
            return nil
        }
        let relativePath = nextRelativePath
        nextRelativePath = nil
        // A browser sends an empty part with `filename=""` when no file was chosen.
        if filename.isEmpty && relativePath == nil {
            return nil
        }
        let reportedName = relativePath ?? filename
        let plan: UploadPlan
        do {
            let (directory, name) = try placement(filename: filename, relativePath: relativePath)
            plan = try store.plan(
                directory: directory, clientName: name, expectedSize: nil, client: client,
                checksummed: format == .json, method: .form)
        } catch {
            try recordFailure(name: reportedName, error)
            return nil
        }
        return plan.opening { [weak self] (opened) throws(HTTPError) in
            switch opened {
            case .success(let upload): self?.current = upload
            case .failure(let error): try self?.recordFailure(name: reportedName, error)
            }
        }
    }

    /// Writes file bytes; returns the pause when the file wants write-back to catch up.
    private func deliver(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> Pause? {
        if let upload = current {
            do {
                try upload.write(bytes)
            } catch {
                current = nil
                try recordFailure(name: upload.requestedName, error)
                return nil
            }
            return upload.writebackPacing().map { (writeback) -> Pause in
                (
                    work: writeback.work,
                    then: { [weak self] () throws(HTTPError) in
                        do throws(HTTPError) {
                            try writeback.then()
                        } catch {
                            self?.current = nil
                            try self?.recordFailure(name: upload.requestedName, error)
                        }
                    }
                )
            }
        } else if field != nil {
            field?.bytes.append(contentsOf: bytes)
        }
        return nil
    }

    /// `Array.withUnsafeBytes` rethrows untyped errors; keep the typed error here.
    private func deliverTail(_ tail: [UInt8]) throws(HTTPError) -> Pause? {
        var outcome: Result<Pause?, HTTPError> = .success(nil)
        tail.withUnsafeBytes { raw in
            do throws(HTTPError) { outcome = .success(try deliver(raw)) } catch { outcome = .failure(error) }
        }
        return try outcome.get()
    }

    /// A file part is complete: its publishing is the pause; the report learns the outcome
    /// on the loop once it is done.
    private func endPart() throws(HTTPError) -> Pause? {
        defer { field = nil }
        if let upload = current {
            current = nil
            switch upload.commit() {
            case .ready(let outcome):
                try record(outcome, name: upload.requestedName)
                return nil
            case .after(let work, let then):
                return (
                    work: work,
                    then: { [weak self] () throws(HTTPError) in
                        guard case .ready(let outcome) = then() else { preconditionFailure("publishing is one step") }
                        try self?.record(outcome, name: upload.requestedName)
                    }
                )
            }
        } else if let field, Self.relativePathFields.contains(field.name) {
            nextRelativePath = String(decoding: field.bytes, as: UTF8.self)
        }
        return nil
    }

    private func record(_ outcome: Result<StoredFile, HTTPError>, name: String) throws(HTTPError) {
        switch outcome {
        case .success(let stored): report.stored.append(stored)
        case .failure(let error): try recordFailure(name: name, error)
        }
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
