extension Response {
    /// `error` as one line of text, `404 Not Found: ...`, with the fields its status calls for:
    /// what the engine answers when the application gives no words of its own.
    public static func plainError(_ error: HTTPError) -> Response {
        var headers = HTTPHeaders.fields(for: error)
        headers.add(.contentType, "text/plain; charset=utf-8")
        headers.add(.cacheControl, "no-store")
        let line = "\(error.status.code) \(error.status.reason): \(error.message)\n"
        return Response(status: error.status, headers: headers, body: .bytes(Array(line.utf8)))
    }
}

extension HTTPHeaders {
    /// The fields an error's status calls for (RFC 9110): Allow with 405, Content-Range with
    /// 416, Retry-After with 429 and a 503 that knows when. A challenge with 401 is the
    /// application's: it knows its scheme and realm.
    public static func fields(for error: HTTPError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        switch error {
        case .methodNotAllowed(let allowed), .methodNotAllowedBecause(_, let allowed):
            headers.add(.allow, allowed.map(\.description).joined(separator: ", "))
        case .rangeNotSatisfiable(let size):
            headers.add(.contentRange, "bytes */\(size)")
        case .tooManyRequests(_, let seconds):
            headers.add(.retryAfter, String(seconds))
        case .serviceUnavailable(_, let seconds?):
            headers.add(.retryAfter, String(seconds))
        default:
            break
        }
        return headers
    }
}
