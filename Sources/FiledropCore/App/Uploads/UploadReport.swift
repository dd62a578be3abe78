import FiledropHTTP

/// The answer to an upload, in the form the client can use: an HTML page for a browser
/// form, JSON for scripts and the page's own XHR, one line per file for curl.
public struct UploadReport: Sendable, FormattedAnswer {
    public var stored: [StoredFile] = []
    public var failures: [(name: String, error: HTTPError)] = []
    /// `UploadStore.withholdsStoredNames`: stored files are reported by size only.
    public var withholdsStoredNames = false
    /// Why a form ended before its last part, and which part (counted from 1) was refused;
    /// the files before it stay stored, and the answer says so beside the error.
    public var stopped: (part: Int, error: HTTPError)?

    public init(withholdsStoredNames: Bool = false) {
        self.withholdsStoredNames = withholdsStoredNames
    }

    /// `text`: the language of the HTML form (`LanguageChoice`).
    public func response(format: ResponseFormat, text: PageText? = nil) -> Response {
        if stored.isEmpty, let first = failures.first, failures.count == 1 {
            return .error(first.error, format: format, text: text)
        }
        if stored.isEmpty && failures.isEmpty {
            return .error(.badRequest("No file was sent. Choose at least one file."), format: format, text: text)
        }
        let status: HTTPStatus =
            stored.isEmpty
            ? (failures.first?.error.status ?? .badRequest)
            : (format == .html ? .ok : .created)
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-store")
        if stored.count == 1, let only = stored.first, format != .html, !withholdsStoredNames {
            headers.add(.location, only.url)
        }
        return response(format, status: status, headers: headers, text: text)
    }

    /// The answer to a form that stopped at a later part (`stopped`): the stop's status,
    /// the files stored before it and the sentence, in the same shape as the success answer.
    /// Nil when nothing was stored or refused before it: then the plain error says it all.
    public func stoppedResponse(format: ResponseFormat, text: PageText? = nil) -> Response? {
        guard let stopped, !(stored.isEmpty && failures.isEmpty) else { return nil }
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-store")
        var response = response(format, status: stopped.error.status, headers: headers, text: text)
        response.refusal = RefusalReason(stopped.error).label
        return response
    }

    /// `3 files stored; part 4 of the form was refused: <why>.`
    var stoppedSentence: String? {
        stopped.map { stopped in
            let files = stored.count == 1 ? "1 file" : "\(stored.count) files"
            return "\(files) stored; part \(stopped.part) of the form was refused: \(stopped.error.message)"
        }
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
            if let stopped, let sentence = stoppedSentence {
                json.member("error", sentence)
                json.member("status", stopped.error.status.code)
            }
        }
    }

    public func plainText() -> String? {
        var lines = stored.map { file in
            withholdsStoredNames
                ? "stored \(file.size) bytes\n" : "stored \(file.path.description.logEscaped) \(file.size) bytes \(file.url)\n"
        }
        lines += failures.map { "failed \($0.name.logEscaped): \($0.error.status.code) \($0.error.message)\n" }
        if let stopped, let sentence = stoppedSentence {
            lines.append("\(stopped.error.status.code) \(stopped.error.status.reason): \(sentence)\n")
        }
        return lines.joined()
    }

    public func htmlPage(_ text: PageText?) -> String {
        let text = text ?? PageLanguages().text(.english)
        var items = ""
        for file in stored where withholdsStoredNames {
            let size = "<span class=\"size\">\(text.size(file.size).htmlEscaped)</span>"
            items += "<li>\(text.html("report.fileOfSize", markup: ["size": size]))</li>\n"
        }
        for file in stored where !withholdsStoredNames {
            items +=
                "<li><a href=\"\(file.url.htmlEscaped)\">\(file.path.description.htmlEscaped)</a> "
                + "<span class=\"size\">\(text.size(file.size).htmlEscaped)</span></li>\n"
        }
        for failure in failures {
            let sentence = failure.error.pageMessage(text) ?? failure.error.message
            items += "<li class=\"error\">\(failure.name.htmlEscaped): \(sentence.htmlEscaped)</li>\n"
        }
        let heading =
            stored.isEmpty ? text.html("report.nothingSaved") : text.htmlPlural("report.saved", count: UInt64(stored.count))
        let stop =
            stopped.map { stopped in
                let reason = stopped.error.pageMessage(text) ?? stopped.error.message
                return
                    "<p class=\"error\">\(text.html("report.stoppedAtPart", ["part": String(stopped.part), "reason": reason]))</p>\n"
            } ?? ""
        let language = text.language
        return """
            <!doctype html>
            <html lang="\(language.tag)" dir="\(language.direction)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(heading)</title><link rel="icon" href="/icon.svg" type="image/svg+xml"><link rel="stylesheet" href="/style.css"></head>
            <body><main class="report"><h1>\(heading)</h1>
            <ul>
            \(items)</ul>
            \(stop)<p><a href="/">\(text.html("report.uploadMore"))</a> · <a href="/files/">\(text.html("report.seeAll"))</a></p>
            </main></body></html>

            """
    }
}

func hex8(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}
