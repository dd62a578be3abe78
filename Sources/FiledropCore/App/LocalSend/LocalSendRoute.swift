import FiledropHTTP

/// The LocalSend v2 endpoints (protocol v2.1 §3.2, §4, §6.1) under `/api/localsend/v2/`, one of
/// `Route`'s cases. Served only on the LocalSend port (`localsend-port`), which serves nothing else.
///
/// ```
/// GET  info            .info            our device (§6.1)
/// POST register        .register        a sender's device in, ours out (§3.2)
/// POST prepare-upload  .prepareUpload   files announced, a session and per-file tokens out (§4.1)
/// POST upload          .upload          one file's bytes (?sessionId=&fileId=&token=, §4.2)
/// POST cancel          .cancel          the sender gives up the session (?sessionId=, §4.3)
/// ```
///
/// The download API (§5, `prepare-download`, `download`) is not offered: `download` is false
/// in our device, so any other name under the prefix is `.unknown` (404).
public enum LocalSendRoute: Sendable, Equatable {
    case info
    case register
    case prepareUpload
    case upload
    case cancel
    /// A name the receiver does not serve.
    case unknown
    /// An endpoint asked with a method it does not take (405 with `Allow`).
    case methodRefused(HTTPMethod, allowed: HTTPMethod)

    public static let prefix = "/api/localsend/v2/"

    /// Nil when `path` is not under `/api/localsend/`: then it is another route (a v1 path is `.unknown`).
    init?(method: HTTPMethod, path: Substring) {
        guard path.hasASCIIPrefix("/api/localsend/") else { return nil }
        guard path.hasASCIIPrefix(Self.prefix) else {
            self = .unknown
            return
        }
        let name = path.dropFirst(Self.prefix.count)
        let (endpoint, takes): (LocalSendRoute, HTTPMethod) =
            switch name {
            case "info": (.info, .get)
            case "register": (.register, .post)
            case "prepare-upload": (.prepareUpload, .post)
            case "upload": (.upload, .post)
            case "cancel": (.cancel, .post)
            default: (.unknown, method)
            }
        let taken = method == takes || (takes == .get && method == .head)
        self = taken ? endpoint : .methodRefused(method, allowed: takes)
    }
}
