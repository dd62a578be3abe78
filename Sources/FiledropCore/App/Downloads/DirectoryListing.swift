import FiledropHTTP

/// A folder of the save directory as HTML (names escaped, sizes for people, sortable) or
/// JSON (name, type, size, mtime, url; `Tests/Fixtures/json/listing.json`) for the page and
/// for scripts, with each file's recorded SHA-256 (`sha256`, when it has one), whole or one
/// page at a time (`ListingPaging`). It has no text form: curl gets the page.
///
/// What is kept in memory is the folder's metadata, sorted (a name and five numbers an entry,
/// about 6 MiB for 100,000 short names): the order and the ETag need all of it before the
/// first byte. The body is written from it as it is sent (`ListingBody`), so the rendered
/// listing is never whole in memory.
struct DirectoryListing: Sendable {
    static let pagePolicy = SecurityPolicy.generatedPage

    let path: StoragePath
    /// The folder's entries in the order asked for, all of them (also when one page is shown).
    let entries: [FileMetadata]
    let title: String
    /// The folder's own mtime (ns): it moves when an entry is added, removed or renamed.
    let modified: Int64
    /// Recorded SHA-256s of some of the folder's files, in their order (nil where none), asked
    /// for as the JSON form is written, a chunk at a time (`Storage.recordedSHA256s`).
    let recordedSHA256s: @Sendable ([FileMetadata]) -> [String?]
    let order: ListingOrder
    /// The page of a paged JSON listing; nil for the whole listing.
    let paging: ListingPaging?

    /// `entries` is consumed: sorted where it lies, never copied.
    init(
        path: StoragePath, entries: consuming [FileMetadata], title: String, query: Substring?, modified: Int64 = 0,
        paging: ListingPaging? = nil,
        recordedSHA256s: @escaping @Sendable ([FileMetadata]) -> [String?] = { Array(repeating: nil, count: $0.count) }
    ) {
        self.path = path
        self.title = title
        self.modified = modified
        self.paging = paging
        self.recordedSHA256s = recordedSHA256s
        order = ListingOrder(QueryParameters(query))
        var entries = entries
        order.sort(&entries)
        self.entries = entries
    }

    /// The part of `entries` a JSON response shows (the HTML page shows them all).
    func shown(format: ResponseFormat) -> Range<Int> {
        guard format == .json, let paging else { return entries.indices }
        // Paging is in name order (ascending or descending), which `entries` is in.
        let start = paging.after.map { order.index(after: $0, in: entries) } ?? 0
        return start..<min(entries.count, start + paging.limit)
    }

    /// RFC 9110 §8.8: a weak ETag, a keyed hash of everything the body is made of (format,
    /// folder, title, each entry's name, kind, size and mtime in the order shown, and the page
    /// asked for), and Last-Modified, the latest mtime of the folder and its entries. A page's
    /// tag covers the whole folder: it changes with any entry, so one request for the first
    /// page tells a poller whether anything changed. Weak because the two content codings of
    /// one listing are the same content; the gzip variant keeps the tag.
    func validators(format: ResponseFormat, text: PageText? = nil) -> FileValidators {
        var hasher = ValidatorKey.Hasher(key: .process)
        // The page's language is part of what it is made of; JSON has none.
        let language = format == .json ? 0 : UInt64((text.flatMap { PageLanguage.allCases.firstIndex(of: $0.language) } ?? 0) + 1)
        hasher.add(format == .json ? 1 : 2)
        hasher.add(language)
        hasher.add(UInt64(path.components.count))
        for component in path.components { hasher.add(component) }
        hasher.add(title)
        var latest = modified
        for entry in entries {
            hasher.add(entry.name)
            hasher.add(entry.kind == .directory ? 1 : 0)
            hasher.add(entry.size)
            hasher.add(UInt64(bitPattern: entry.modified))
            latest = max(latest, entry.modified)
        }
        if format == .json, let paging {
            hasher.add(UInt64(paging.limit))
            hasher.add(paging.cursor ?? "")
        }
        let etag = "W/\"" + ValidatorKey.hex(hasher.finish()) + "\""
        return FileValidators(etag: etag, modifiedSeconds: latest / 1_000_000_000)
    }

    /// The fields a 200 and a 304 of this listing share (RFC 9110 §15.4.5: a 304 carries
    /// the Cache-Control, ETag and Vary the 200 would).
    private func cachingFields(_ validators: FileValidators) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-cache")
        headers.add(.vary, "Accept")
        for field in PageText.varyFields { headers.addVary(field) }
        headers.add(.etag, validators.etag)
        headers.add(.lastModified, validators.lastModified)
        return headers
    }

    /// 304 when the client's copy is this listing (If-None-Match, else If-Modified-Since),
    /// else the listing; `compression` adds its Vary to either (RFC 9110 §12.5.5).
    func response(format: ResponseFormat, head: RequestHead, compression: ResponseCompression, text: PageText? = nil) -> Response
    {
        let validators = validators(format: format, text: text)
        guard FileResponse.isNotModified(head: head, etag: validators.etag, modifiedSeconds: validators.modifiedSeconds) else {
            return compression.apply(to: response(format: format, validators: validators, text: text))
        }
        var headers = cachingFields(validators)
        if compression.variesByEncoding(generated: Self.shownFormat(format).contentType) { headers.addVary("Accept-Encoding") }
        return Response(status: .notModified, headers: headers)
    }

    /// The form `format` gets: JSON, or the page (there are no text lines).
    private static func shownFormat(_ format: ResponseFormat) -> ResponseFormat {
        format == .json ? .json : .html
    }

    func response(format: ResponseFormat, text: PageText? = nil) -> Response {
        response(format: format, validators: validators(format: format, text: text), text: text)
    }

    private func response(format: ResponseFormat, validators: FileValidators, text: PageText?) -> Response {
        let shown = Self.shownFormat(format)
        var headers = cachingFields(validators)
        headers.addAnswerFields(shown, pagePolicy: Self.pagePolicy, text: text)
        let body = ListingBody(self, format: shown, text: text ?? PageLanguages().text(.english)).responseBody()
        return Response(status: .ok, headers: headers, body: body)
    }
}
