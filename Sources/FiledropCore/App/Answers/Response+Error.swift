import FiledropHTTP

/// An `HTTPError` as the client reads it: its status and sentence as a small page, as
/// `{"error":"...","status":404}` (`Tests/Fixtures/json/error-*.json`), or as one line
/// `404 Not Found: ...`.
struct ErrorAnswer: FormattedAnswer {
    static var pagePolicy: SecurityPolicy { .inlineStyledDocument }

    let status: HTTPStatus
    let message: String
    /// The error itself, for its sentence in the page's language (`HTTPError.pageMessage`).
    let error: HTTPError?

    func writeJSON(to json: inout JSONWriter) {
        json.object { json in
            json.member("error", message)
            json.member("status", status.code)
        }
    }

    /// In the reader's language: the status's name (`status.<code>`), the sentence where the
    /// catalogue has one for this error, else the English one the API sends, and the way back.
    func htmlPage(_ text: PageText?) -> String {
        let heading = "\(status.code) " + (text?.known("status.\(status.code)") ?? status.reason).htmlEscaped
        let sentence = (text.flatMap { error?.pageMessage($0) } ?? message).htmlEscaped
        let back = text.map { "<p><a href=\"/\">\($0.html("error.back"))</a></p>" } ?? ""
        return """
            <!doctype html>
            <html lang="\(text?.language.tag ?? "en")" dir="\(text?.language.direction ?? "ltr")"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(heading)</title></head>
            <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
            <h1>\(heading)</h1><p>\(sentence)</p>\(back)
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
    /// `text`: the language of the HTML form (nil: the connection's protocol errors, which
    /// come before any catalogue is at hand).
    public static func error(_ error: HTTPError, format: ResponseFormat, text: PageText? = nil) -> Response {
        var headers = HTTPHeaders.fields(for: error)
        if case .unauthorized = error {
            headers.add(.wwwAuthenticate, BasicCredentials.challenge)
        }
        var response = ErrorAnswer(status: error.status, message: error.message, error: error)
            .response(format, status: error.status, headers: headers, text: text)
        response.headers.add(.cacheControl, "no-store")
        response.refusal = RefusalReason(error).label
        return response
    }
}
