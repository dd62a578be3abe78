import FiledropHTTP

extension FiledropApp {
    /// `GET /healthz`: `200 ok` while the save directory takes uploads (in `read-only` mode:
    /// while it can be read), else 503 with why: the refusal an upload would get now.
    /// A worker reads `health` (its probe touches the disk); the loop only sends the answer.
    /// `no-store`: a cached "ok" would hide a daemon that has just lost its directory.
    func healthPage(_ head: RequestHead) -> RouteDecision {
        .blocking("healthz", { [health] in health.current() }) { reading in
            guard let reading else {
                return .respond(
                    Response(
                        status: .ok, headers: [.contentType: ResponseFormat.text.contentType, .cacheControl: "no-store"],
                        body: .bytes(Array("ok\n".utf8))))
            }
            let why = HTTPError.serviceUnavailable(
                "The save directory takes no uploads now: \(reading.message)",
                retryAfterSeconds: nil)
            var response = Response.error(why, format: ResponseFormat(head: head), text: languages.text(for: head))
            response.headers.replaceOrAdd(.cacheControl, "no-store")
            return .respond(response)
        }
    }
}
