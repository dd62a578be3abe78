import FiledropHTTP

/// Uploads by form, PUT and POST of a raw body: admitted before any byte is read.
extension FiledropApp {
    func upload(_ head: RequestHead, context: RequestContext, admission: UploadAdmission) throws(HTTPError)
        -> RouteDecision
    {
        let query = QueryParameters(head.query)
        if let name = query["name"] {
            let path = try store.names.storagePath(fromRelative: name)
            guard let fileName = path.name else { throw .badRequest("The name parameter is empty.") }
            return try rawUpload(head, directory: path.parent, name: fileName, context: context, admission: admission)
        }
        try writable()
        guard let contentType = head.headers[.contentType], let mediaType = MediaType(parsing: contentType),
            mediaType.type == "multipart", mediaType.subtype == "form-data"
        else {
            throw .unsupportedMediaType(
                "Send the files as multipart/form-data (curl -F file=@name), or the raw bytes with ?name=<file name>.")
        }
        guard let boundary = mediaType["boundary"] else {
            throw .badRequest("The multipart Content-Type has no boundary parameter.")
        }
        if let maxRequestSize = configuration.maxRequestSize, let length = declaredLength(head), length > maxRequestSize {
            throw .contentTooLarge(limit: maxRequestSize)
        }
        let directory =
            try query["path"].map { (value) throws(HTTPError) in try store.names.storagePath(fromRelative: value) } ?? .root
        try admission.admit()
        return .readBody(
            MultipartUpload(
                boundary: boundary, store: store, baseDirectory: directory, format: ResponseFormat(head: head),
                text: languages.text(for: head),
                client: context.client, maxRequestSize: configuration.maxRequestSize))
    }

    func rawUpload(
        _ head: RequestHead, directory: StoragePath, name: String, context: RequestContext,
        admission: UploadAdmission
    ) throws(HTTPError) -> RouteDecision {
        try writable()
        let length = declaredLength(head)
        let format = ResponseFormat(head: head)
        let text = languages.text(for: head)
        let plan = try store.plan(
            directory: directory, clientName: name, expectedSize: length, client: context.client,
            checksummed: format == .json, method: .put)
        let expectedSHA256 = store.hashing == nil ? nil : try ClientDigest.expectedSHA256(head.headers)
        // Before the file is opened and "upload started" logged, so a 429 leaves no trace.
        try admission.admit(name: plan.directory.appending(checkedName: plan.name).description)
        // Opening may make folders (each fsync'ed into its parent): a worker does it.
        return .blocking("open upload", skippableWhenAbandoned: false, { plan.open() }) { opened in
            switch opened {
            case .success(let pending):
                .readBody(RawUpload(upload: pending, format: format, expectedSHA256: expectedSHA256, text: text))
            case .failure(let error): .respond(.error(error, format: format, text: text))
            }
        }
    }

    /// Content-Length when the body is framed by it (not when chunked wins).
    func declaredLength(_ head: RequestHead) -> UInt64? {
        guard !head.headers.contains(.transferEncoding), let value = head.headers[.contentLength] else { return nil }
        return UInt64(value)
    }

    func writable() throws(HTTPError) {
        if configuration.access == .readOnly { throw .readOnlyServer }
    }
}
