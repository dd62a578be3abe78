/// The answer to an upload, in the form the client can use: an HTML page for a browser
/// form, JSON for scripts and the page's own XHR, one line per file for curl.
public struct UploadReport: Sendable, FormattedAnswer {
    public var stored: [StoredFile] = []
    public var failures: [(name: String, error: HTTPError)] = []
    /// `UploadStore.withholdsStoredNames`: stored files are reported by size only.
    public var withholdsStoredNames = false

    public init(withholdsStoredNames: Bool = false) {
        self.withholdsStoredNames = withholdsStoredNames
    }

    public func response(format: ResponseFormat) -> Response {
        if stored.isEmpty, let first = failures.first, failures.count == 1 {
            return .error(first.error, format: format)
        }
        if stored.isEmpty && failures.isEmpty {
            return .error(.badRequest("No file was sent. Choose at least one file."), format: format)
        }
        let status: HTTPStatus = stored.isEmpty ? (failures.first?.error.status ?? .badRequest)
            : (format == .html ? .ok : .created)
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-store")
        if stored.count == 1, let only = stored.first, format != .html, !withholdsStoredNames {
            headers.add(.location, only.url)
        }
        return response(format, status: status, headers: headers)
    }

    public static var pagePolicy: SecurityPolicy { .generatedPage }

    /// `{"files":[...],"errors":[...]}` (`Tests/Fixtures/json/upload.json`); in a drop box a
    /// stored file is its size (and crc32 and sha256) alone.
    public func writeJSON(to json: inout JSONWriter) {
        json.object { json in
            json.key("files")
            json.array { json in
                for file in stored {
                    json.object { json in
                        if !withholdsStoredNames { json.member("name", file.path.description) }
                        json.member("size", file.size)
                        if let crc32 = file.crc32 { json.member("crc32", hex8(crc32)) }
                        if let sha256 = file.sha256 { json.member("sha256", sha256) }
                        if !withholdsStoredNames { json.member("url", file.url) }
                    }
                }
            }
            json.key("errors")
            json.array { json in
                for failure in failures {
                    json.object { json in
                        json.member("name", failure.name)
                        json.member("status", failure.error.status.code)
                        json.member("message", failure.error.message)
                    }
                }
            }
        }
    }

    public func plainText() -> String? {
        var lines = stored.map { file in
            withholdsStoredNames ? "stored \(file.size) bytes\n" : "stored \(file.path.description.logEscaped) \(file.size) bytes \(file.url)\n"
        }
        lines += failures.map { "failed \($0.name.logEscaped): \($0.error.status.code) \($0.error.message)\n" }
        return lines.joined()
    }

    public func htmlPage() -> String {
        var items = ""
        for file in stored where withholdsStoredNames {
            items += "<li>A file of <span class=\"size\">\(ByteCount.format(file.size).htmlEscaped)</span></li>\n"
        }
        for file in stored where !withholdsStoredNames {
            items += "<li><a href=\"\(file.url.htmlEscaped)\">\(file.path.description.htmlEscaped)</a> "
                + "<span class=\"size\">\(ByteCount.format(file.size).htmlEscaped)</span></li>\n"
        }
        for failure in failures {
            items += "<li class=\"error\">\(failure.name.htmlEscaped): \(failure.error.message.htmlEscaped)</li>\n"
        }
        let heading = stored.isEmpty ? "Nothing was saved" : (stored.count == 1 ? "1 file saved" : "\(stored.count) files saved")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(heading)</title><link rel="icon" href="/icon.svg" type="image/svg+xml"><link rel="stylesheet" href="/style.css"></head>
            <body><main class="report"><h1>\(heading)</h1>
            <ul>
            \(items)</ul>
            <p><a href="/">Upload more files</a> · <a href="/files/">See all files</a></p>
            </main></body></html>

            """
    }
}

func hex8(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}
