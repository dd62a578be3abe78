/// A folder of the save directory as HTML (names escaped, sizes for people, sortable) or
/// JSON (name, type, size, mtime, url) for the page and for scripts.
struct DirectoryListing {
    enum SortKey: String { case name, size, date }

    let path: StoragePath
    let entries: [FileMetadata]
    let title: String

    init(path: StoragePath, entries: [FileMetadata], title: String, query: Substring?) {
        self.path = path
        self.title = title
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

    func response(format: ResponseFormat) -> Response {
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "Vary", value: "Accept")
        let body: String
        switch format {
        case .json:
            headers.add(name: "Content-Type", value: "application/json")
            body = json
        case .html, .text:
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'self'; img-src 'self'")
            body = html
        }
        return Response(status: .ok, headers: headers, body: .bytes(Array(body.utf8)))
    }

    private var json: String {
        let items = entries.map { entry in
            var fields = "{\"name\":\"\(entry.name.jsonEscaped)\",\"type\":\"\(entry.kind == .directory ? "directory" : "file")\""
            if entry.kind == .file {
                fields += ",\"size\":\(entry.size)"
            }
            fields += ",\"mtime\":\"\(HTTPDate.iso8601(entry.modified / 1_000_000_000))\",\"url\":\"\(url(of: entry).jsonEscaped)\"}"
            return fields
        }
        let pathText = path.components.map { $0 + "/" }.joined()
        return "{\"path\":\"\(pathText.jsonEscaped)\",\"entries\":[\(items.joined(separator: ","))]}\n"
    }

    private var html: String {
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
