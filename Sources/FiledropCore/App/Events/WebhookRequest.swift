import FiledropHTTP

/// The POST one finished upload becomes, in JSON or in ntfy's publish format
/// (https://docs.ntfy.sh/publish/: the body is the message; `Title`, `Tags` and `Click`
/// headers; non-ASCII header values as RFC 2047 encoded words, which ntfy decodes).
public struct WebhookRequest: Sendable, Equatable {
    public var contentType: String
    /// Besides Host, Content-Type, Content-Length, Connection and User-Agent.
    public var headers: [(name: HTTPFieldName, value: String)]
    public var body: [UInt8]

    public static func == (lhs: WebhookRequest, rhs: WebhookRequest) -> Bool {
        lhs.contentType == rhs.contentType && lhs.body == rhs.body
            && lhs.headers.map(\.name.text) == rhs.headers.map(\.name.text)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// `title`: the server's title (the `title` key), which names it on the phone.
    public init(event: UploadEvent, format: NotifyTarget.Format, baseURL: String?, title: String) {
        switch format {
        case .auto, .json:
            contentType = "application/json"
            headers = []
            body = event.json(baseURL: baseURL)
        case .ntfy:
            contentType = "text/plain; charset=utf-8"
            var headers: [(name: HTTPFieldName, value: String)] = [
                (.ntfyTitle, Self.headerValue("\(title): new file")),
                (.ntfyTags, "inbox_tray"),
            ]
            // A click opens the file; only an absolute URL means anything on a phone.
            if baseURL != nil { headers.append((.ntfyClick, event.url(baseURL: baseURL))) }
            self.headers = headers
            // The name goes in the body, which is UTF-8: no header escaping for it.
            body = Array("\(event.name) (\(ByteCount.format(event.size))) from \(event.client)".utf8)
        }
    }

    /// ASCII as it is; anything else (or a control character) as one RFC 2047 §4.1 "B"
    /// encoded word, so no byte a header may not hold reaches the wire.
    static func headerValue(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        return plain ? text : "=?UTF-8?B?\(Base64.encode(Array(text.utf8)))?="
    }
}

extension HTTPFieldName {
    /// ntfy's publish headers (https://docs.ntfy.sh/publish/).
    static let ntfyTitle = HTTPFieldName("Title")
    static let ntfyTags = HTTPFieldName("Tags")
    static let ntfyClick = HTTPFieldName("Click")
}
