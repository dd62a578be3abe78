/// An `HTTPError` as the client reads it: its status and sentence as a small page, as
/// `{"error":"...","status":404}` (`Tests/Fixtures/json/error-*.json`), or as one line
/// `404 Not Found: ...`.
struct ErrorAnswer: FormattedAnswer {
    static var pagePolicy: SecurityPolicy { .inlineStyledDocument }

    let status: HTTPStatus
    let message: String

    func writeJSON(to json: inout JSONWriter) {
        json.object { json in
            json.member("error", message)
            json.member("status", status.code)
        }
    }

    func htmlPage() -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(status.code) \(status.reason.htmlEscaped)</title></head>
        <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
        <h1>\(status.code) \(status.reason.htmlEscaped)</h1><p>\(message.htmlEscaped)</p><p><a href="/">Back to the upload page</a></p>
        </body></html>

        """
    }

    func plainText() -> String? {
        "\(status.code) \(status.reason): \(message)\n"
    }
}

extension Response {
    /// An error in the client's format, with the status and sentence of `HTTPError` and the
    /// fields its status calls for (Allow, Content-Range, WWW-Authenticate, Retry-After).
    public static func error(_ error: HTTPError, format: ResponseFormat) -> Response {
        var headers = HTTPHeaders()
        if case .methodNotAllowed(let allowed) = error {
            headers.add(.allow, allowed.map(\.description).joined(separator: ", "))
        }
        if case .methodNotAllowedBecause(_, let allowed) = error {
            headers.add(.allow, allowed.map(\.description).joined(separator: ", "))
        }
        if case .rangeNotSatisfiable(let size) = error {
            headers.add(.contentRange, "bytes */\(size)")
        }
        if case .unauthorized = error {
            headers.add(.wwwAuthenticate, BasicCredentials.challenge)
        }
        if case .tooManyRequests(_, let seconds) = error {
            headers.add(.retryAfter, String(seconds))
        }
        if case .serviceUnavailable(_, let seconds?) = error {
            headers.add(.retryAfter, String(seconds))
        }
        var response = ErrorAnswer(status: error.status, message: error.message).response(format, status: error.status, headers: headers)
        response.headers.add(.cacheControl, "no-store")
        response.refusal = RefusalReason(error)
        return response
    }
}
