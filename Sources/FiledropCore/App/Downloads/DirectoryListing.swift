/// A folder of the save directory as HTML (names escaped, sizes for people, sortable) or
/// JSON (name, type, size, mtime, url; `Tests/Fixtures/json/listing.json`) for the page and
/// for scripts, with each file's recorded SHA-256 (`sha256`, when it has one). It has no text
/// form: curl gets the page.
struct DirectoryListing: FormattedAnswer {
    static var pagePolicy: SecurityPolicy { .generatedPage }

    enum SortKey: String { case name, size, date }

    let path: StoragePath
    let entries: [FileMetadata]
    let title: String
    /// The folder's own mtime (ns): it moves when an entry is added, removed or renamed.
    let modified: Int64
    /// Recorded SHA-256s by file name, read for the JSON form only (one xattr per file).
    let sha256s: [String: String]

    init(path: StoragePath, entries: [FileMetadata], title: String, query: Substring?, modified: Int64 = 0,
         sha256s: [String: String] = [:]) {
        self.path = path
        self.sha256s = sha256s
        self.title = title
        self.modified = modified
        let parameters = QueryParameters(query)
        let key = SortKey(rawValue: parameters["sort"] ?? "") ?? .name
        let descending = parameters["order"] == "desc"
        // Folders first, then the chosen order.
        let sorted = entries.sorted { a, b in
            if a.kind != b.kind { return a.kind == .directory }
            let ascending: Bool
            switch key {
            case .name: ascending = a.name.lowercased() < b.name.lowercased()
            case .size: ascending = a.size < b.size
            case .date: ascending = a.modified < b.modified
            }
            return descending ? !ascending : ascending
        }
        self.entries = sorted
    }

    private var directoryURL: String {
        "/files/" + path.components.map { percentEncodedPathComponent($0) + "/" }.joined()
    }

    private func url(of entry: FileMetadata) -> String {
        directoryURL + percentEncodedPathComponent(entry.name) + (entry.kind == .directory ? "/" : "")
    }

    /// RFC 9110 §8.8: a weak ETag, a keyed hash of everything the body is made of (format,
    /// folder, title, and each entry's name, kind, size and mtime in the order shown), and
    /// Last-Modified, the latest mtime of the folder and its entries. Weak because the two
    /// content codings of one listing are the same content; the gzip variant keeps the tag.
    func validators(format: ResponseFormat) -> FileValidators {
        var words: [UInt64] = [format == .json ? 1 : 2, UInt64(path.components.count)]
        words.reserveCapacity(entries.count * 6 + 8)
        for component in path.components { words += ValidatorKey.words(of: component) }
        words += ValidatorKey.words(of: title)
        var latest = modified
        for entry in entries {
            words += ValidatorKey.words(of: entry.name)
            words += [entry.kind == .directory ? 1 : 0, entry.size, UInt64(bitPattern: entry.modified)]
            latest = max(latest, entry.modified)
        }
        let etag = "W/\"" + ValidatorKey.hex(ValidatorKey.process.hash(words)) + "\""
        return FileValidators(etag: etag, modifiedSeconds: latest / 1_000_000_000)
    }

    /// The fields a 200 and a 304 of this listing share (RFC 9110 §15.4.5: a 304 carries
    /// the Cache-Control, ETag and Vary the 200 would).
    private func cachingFields(_ validators: FileValidators) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-cache")
        headers.add(.vary, "Accept")
        headers.add(.etag, validators.etag)
        headers.add(.lastModified, validators.lastModified)
        return headers
    }

    /// 304 when the client's copy is this listing (If-None-Match, else If-Modified-Since),
    /// else the listing; `compression` adds its Vary to either (RFC 9110 §12.5.5).
    func response(format: ResponseFormat, head: RequestHead, compression: ResponseCompression) -> Response {
        let validators = validators(format: format)
        guard FileResponse.isNotModified(head: head, etag: validators.etag, modifiedSeconds: validators.modifiedSeconds) else {
            return compression.apply(to: response(format: format, validators: validators))
        }
        var headers = cachingFields(validators)
        if compression.variesByEncoding(generated: Self.shownFormat(format).contentType) { headers.addVary("Accept-Encoding") }
        return Response(status: .notModified, headers: headers)
    }

    /// The form `format` gets: JSON, or the page (there are no text lines).
    private static func shownFormat(_ format: ResponseFormat) -> ResponseFormat {
        format == .json ? .json : .html
    }

    func response(format: ResponseFormat) -> Response {
        response(format: format, validators: validators(format: format))
    }

    private func response(format: ResponseFormat, validators: FileValidators) -> Response {
        response(format, status: .ok, headers: cachingFields(validators))
    }

    func writeJSON(to json: inout JSONWriter) {
        json.object { json in
            json.member("path", path.components.map { $0 + "/" }.joined())
            json.key("entries")
            json.array { json in
                for entry in entries {
                    json.object { json in
                        json.member("name", entry.name)
                        json.member("type", entry.kind == .directory ? "directory" : "file")
                        if entry.kind == .file { json.member("size", entry.size) }
                        json.member("mtime", HTTPDate.iso8601(entry.modified / 1_000_000_000))
                        json.member("url", url(of: entry))
                        if entry.kind == .file, let sha256 = sha256s[entry.name] { json.member("sha256", sha256) }
                    }
                }
            }
        }
    }

    func plainText() -> String? { nil }

    func htmlPage() -> String {
        var rows = ""
        if !path.isRoot {
            rows += "<tr><td><a href=\"../\">../</a></td><td></td><td></td></tr>\n"
        }
        for entry in entries {
            let name = entry.name.htmlEscaped + (entry.kind == .directory ? "/" : "")
            let size = entry.kind == .directory ? "" : ByteCount.format(entry.size)
            let date = HTTPDate.iso8601(entry.modified / 1_000_000_000).replacingT()
            rows += "<tr><td><a href=\"\(url(of: entry).htmlEscaped)\">\(name)</a></td><td>\(size)</td><td>\(date)</td></tr>\n"
        }
        let heading = "/" + path.components.map { $0 + "/" }.joined()
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title.htmlEscaped): \(heading.htmlEscaped)</title><link rel="stylesheet" href="/style.css"></head>
            <body><main class="listing"><h1>\(heading.htmlEscaped)</h1>
            <p><a href="/">Upload files</a> · <a href="?zip">Download this folder as ZIP</a></p>
            <table><thead><tr><th><a href="?sort=name">Name</a></th><th><a href="?sort=size&amp;order=desc">Size</a></th><th><a href="?sort=date&amp;order=desc">Modified</a></th></tr></thead>
            <tbody>
            \(rows)</tbody></table></main></body></html>

            """
    }
}

private extension String {
    func replacingT() -> String {
        String(map { $0 == "T" ? " " : $0 }.dropLast()) + " UTC"
    }
}
