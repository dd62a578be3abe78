/// The representation a client asked for: browsers send `Accept: text/html`, scripts using
/// `fetch`/XHR ask for JSON, curl sends `*/*` and gets plain text lines.
public enum ResponseFormat: Sendable, Equatable {
    case html, json, text

    /// From the Accept field's bytes (`HTTPHeaders.withValueBytes`): a browser's is over a
    /// hundred bytes, read on every request.
    init(acceptBytes accepted: UnsafeRawBufferPointer?, query: Substring?) {
        if let query, query.split(separator: "&").contains(where: { $0 == "format=json" }) {
            self = .json
            return
        }
        // curl and wrk send no Accept (or `*/*`): plain text, without searching.
        guard let accepted else {
            self = .text
            return
        }
        if ByteSearch.contains(accepted, caseInsensitive: "application/json") {
            self = .json
        } else if ByteSearch.contains(accepted, caseInsensitive: "text/html") {
            self = .html
        } else {
            self = .text
        }
    }

    public init(head: borrowing RequestHead) {
        self =
            head.headers.withValueBytes(of: .accept) { Self(acceptBytes: $0, query: head.query) }
            ?? Self(acceptBytes: nil, query: head.query)
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
