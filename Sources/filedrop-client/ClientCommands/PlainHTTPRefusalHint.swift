import FiledropClient
import Foundation

/// What to do when a server refuses an upload sent over plain HTTP: filedrop's plain port
/// with HTTPS on takes no files (403, naming its HTTPS address), so the sentence alone leaves
/// a person guessing at `--to` and at trusting the certificate. Said once per run.
enum PlainHTTPRefusalHint {
    /// The lines to print after `error`, or nil when it is not that refusal.
    static func text(for error: FiledropClientError, url: URL, verb: ClientCommandLine.Verb) -> String? {
        guard verb == .send, url.scheme?.lowercased() == "http", case .refused(status: 403, let message) = error,
            let origin = httpsOrigin(in: message)
        else { return nil }
        let trustPage = url.absoluteString.hasSuffix("/") ? url.absoluteString + "trust" : url.absoluteString + "/trust"
        return """
            filedrop send: this server takes uploads over HTTPS only, so nobody on the network can read them. Send to its HTTPS address:
              filedrop send FILE... --to \(origin)
            The first time, filedrop shows the server's certificate fingerprint and asks whether to trust it: compare it with the one on \(trustPage) or in the server's log (or pass --fingerprint SHA256, or --ca FILE from \(origin)/ca.crt).
            """
    }

    /// `https://host[:port]` from the first HTTPS URL in the server's sentence.
    static func httpsOrigin(in message: String) -> String? {
        guard let start = message.range(of: "https://") else { return nil }
        let rest = message[start.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != " " && $0 != "?" && $0 != "\n" }
        guard !authority.isEmpty else { return nil }
        return "https://" + authority
    }
}
