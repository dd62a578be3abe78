import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every way a transfer fails, closed so callers (and the `filedrop` command's exit codes)
/// can tell "the server said no" from "the network broke" from "this machine's file".
public enum FiledropClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered with an error status and this sentence (its JSON `error` field,
    /// or the text after `413 Content Too Large: `).
    case refused(status: Int, message: String)
    /// 401: no password was given, or the wrong one (RFC 9110 §15.5.2).
    case unauthorized(message: String)
    /// No answer: connection refused or reset, timeout, DNS.
    case network(String)
    /// The server answered something this client cannot use (no Location, bad JSON).
    case invalidResponse(String)
    /// A local file could not be read, written or renamed.
    case localFile(path: String, reason: String)
    /// The caller cancelled the transfer (Swift task cancellation).
    case cancelled
    /// The server's certificate is not the one `ServerTrust` accepts (or the platform
    /// cannot apply that choice): nothing was sent.
    case untrustedServer(String)

    public var description: String {
        switch self {
        case .refused(let status, let message): "the server refused (\(status)): \(message)"
        case .unauthorized(let message): "the server wants a password (401): \(message)"
        case .network(let reason): "no answer from the server: \(reason)"
        case .invalidResponse(let reason): "unexpected answer from the server: \(reason)"
        case .localFile(let path, let reason): "\(path): \(reason)"
        case .cancelled: "cancelled"
        case .untrustedServer(let reason): "the server's certificate is not trusted: \(reason)"
        }
    }

    /// The error for an HTTP status of 400 or more, with the server's own sentence from `body`.
    static func from(status: Int, body: Data) -> FiledropClientError {
        let message = serverMessage(in: body) ?? HTTPURLResponse.localizedString(forStatusCode: status)
        return status == 401 ? .unauthorized(message: message) : .refused(status: status, message: message)
    }

    /// `{"error":"sentence","status":413}` (the server with `Accept: application/json`;
    /// `Tests/Fixtures/json/error-400.json` declares it), or
    /// a text line `413 Content Too Large: sentence` (tus responses, other servers).
    static func serverMessage(in body: Data) -> String? {
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let message = object["error"] as? String, !message.isEmpty
        {
            return message
        }
        guard
            let text = String(data: body.prefix(4096), encoding: .utf8)?
                .trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty, !text.hasPrefix("<")
        else { return nil }
        let firstLine = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? text
        if let colon = firstLine.range(of: ": "), firstLine.prefix(3).allSatisfy(\.isNumber) {
            return String(firstLine[colon.upperBound...])
        }
        return firstLine
    }

    /// Maps what URLSession throws: cancellation stays cancellation, the rest is the network.
    static func from(_ error: Error) -> FiledropClientError {
        if let error = error as? FiledropClientError { return error }
        if error is CancellationError { return .cancelled }
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled: return .cancelled
            case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .secureConnectionFailed:
                return .untrustedServer(urlError.localizedDescription)
            default: return .network(urlError.localizedDescription)
            }
        }
        return .network(String(describing: error))
    }
}
