/// The representation a client asked for: browsers send `Accept: text/html`, scripts using
/// `fetch`/XHR ask for JSON, curl sends `*/*` and gets plain text lines.
public enum ResponseFormat: Sendable, Equatable {
    case html, json, text

    public init(accept: String?, query: Substring? = nil) {
        if let query, query.split(separator: "&").contains(where: { $0 == "format=json" }) {
            self = .json
            return
        }
        // curl and wrk send no Accept (or `*/*`): plain text, without searching.
        guard let accepted = accept else {
            self = .text
            return
        }
        if accepted.containsASCIICaseInsensitive("application/json") {
            self = .json
        } else if accepted.containsASCIICaseInsensitive("text/html") {
            self = .html
        } else {
            self = .text
        }
    }

    public init(head: RequestHead) {
        self.init(accept: head.headers[.accept], query: head.query)
    }
}

extension Response {
    /// An error in the client's format, with the status and sentence of `HTTPError`.
    public static func error(_ error: HTTPError, format: ResponseFormat) -> Response {
        var headers = HTTPHeaders()
        if case .methodNotAllowed(let allowed) = error {
            headers.add(name: "Allow", value: allowed.map(\.description).joined(separator: ", "))
        }
        if case .rangeNotSatisfiable(let size) = error {
            headers.add(name: "Content-Range", value: "bytes */\(size)")
        }
        if case .unauthorized = error {
            headers.add(name: "WWW-Authenticate", value: BasicCredentials.challenge)
        }
        if case .tooManyRequests(_, let seconds) = error {
            headers.add(name: "Retry-After", value: String(seconds))
        }
        if case .serviceUnavailable(_, let seconds?) = error {
            headers.add(name: "Retry-After", value: String(seconds))
        }
        let status = error.status
        let body: String
        switch format {
        case .json:
            headers.add(name: "Content-Type", value: "application/json")
            body = "{\"error\":\"\(error.message.jsonEscaped)\",\"status\":\(status.code)}\n"
        case .html:
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'")
            body = """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
                <title>\(status.code) \(status.reason.htmlEscaped)</title></head>
                <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
                <h1>\(status.code) \(status.reason.htmlEscaped)</h1><p>\(error.message.htmlEscaped)</p><p><a href="/">Back to the upload page</a></p>
                </body></html>

                """
        case .text:
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            body = "\(status.code) \(status.reason): \(error.message)\n"
        }
        headers.add(name: "Cache-Control", value: "no-store")
        return Response(status: status, headers: headers, body: .bytes(Array(body.utf8)))
    }
}
