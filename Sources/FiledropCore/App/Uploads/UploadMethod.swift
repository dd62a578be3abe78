/// How an upload's bytes arrive: the `method` label of the upload counters in `/metrics`, and
/// what an event's `FILEDROP_METHOD` and JSON `method` say.
public enum UploadMethod: String, Sendable, CaseIterable {
    /// multipart/form-data (the page, `curl -F`): one upload per file part.
    case form
    /// The raw request body: `PUT /files/NAME`, or `POST /upload?name=NAME`.
    case put
    /// Resumable (tus 1.0): counted once, when the last byte is saved, however many PATCHes.
    case tus
    /// LocalSend's `upload` (issue 22): one announced file per request.
    case localsend
}
