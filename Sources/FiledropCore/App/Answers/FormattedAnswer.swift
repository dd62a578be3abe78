import FiledropHTTP

/// An answer the server gives in the form the client asked for (`ResponseFormat`): a page for
/// a browser, a JSON document for scripts and the page's own requests, text lines for curl.
/// Each answer says what it is in the three forms; `response(_:status:headers:)` is the one
/// place that picks the form and sets its Content-Type and, for a page, its policy.
///
/// The JSON forms are pinned by the golden files in `Tests/Fixtures/json`, which the server's,
/// the client's and the page's tests all read.
public protocol FormattedAnswer {
    /// The policy of the HTML form.
    static var pagePolicy: SecurityPolicy { get }
    func writeJSON(to json: inout JSONWriter)
    /// The page in `text`'s language (`LanguageChoice`); nil where no catalogues are at hand
    /// (the connection's own protocol errors), which gets the page without its translated parts.
    func htmlPage(_ text: PageText?) -> String
    /// Text lines; nil when the answer has none and curl gets the page (a listing).
    func plainText() -> String?
}

extension FormattedAnswer {
    /// This answer as `format` asks, after the caller's `headers` (Cache-Control, Location,
    /// validators, ... in the order they go on the wire): Content-Type, then the page's policy.
    /// A page says `Vary: Accept-Language, Cookie`: its words follow them.
    public func response(
        _ format: ResponseFormat, status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(),
        text: PageText? = nil
    ) -> Response {
        var headers = headers
        let body: [UInt8]
        let shown: ResponseFormat
        switch format {
        case .json:
            body = JSONWriter.document { writeJSON(to: &$0) }
            shown = .json
        case .text:
            if let text = plainText() {
                body = Array(text.utf8)
                shown = .text
            } else {
                body = Array(htmlPage(text).utf8)
                shown = .html
            }
        case .html:
            body = Array(htmlPage(text).utf8)
            shown = .html
        }
        headers.addAnswerFields(shown, pagePolicy: Self.pagePolicy, text: text)
        return Response(status: status, headers: headers, body: .bytes(body))
    }
}

extension HTTPHeaders {
    /// What every generated answer in `shown` carries after the caller's fields: Content-Type,
    /// and for a page its policy and `Vary: Accept-Language, Cookie` (its words follow them).
    mutating func addAnswerFields(_ shown: ResponseFormat, pagePolicy: SecurityPolicy, text: PageText?) {
        add(.contentType, shown.contentType)
        if shown == .html {
            add(policy: pagePolicy)
            if text != nil { for field in PageText.varyFields { addVary(field) } }
        }
    }
}
