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

    public init(head: borrowing RequestHead) {
        self.init(accept: head.headers[.accept], query: head.query)
    }

    /// The Content-Type of an answer in this format (`FormattedAnswer`).
    public var contentType: String {
        switch self {
        case .html: "text/html; charset=utf-8"
        case .json: "application/json"
        case .text: "text/plain; charset=utf-8"
        }
    }
}
