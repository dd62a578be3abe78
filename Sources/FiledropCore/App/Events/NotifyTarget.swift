/// Where `notify-url` points: `http://` or `https://`, a host, an optional port, a path.
/// Parsed once when the configuration is read, so a typo is a start-up error, not a silent
/// webhook that never fires.
public struct NotifyTarget: Sendable, Equatable {
    public enum Format: String, Sendable, Equatable, CaseIterable {
        /// ntfy when the host is ntfy.sh, else JSON.
        case auto
        /// `UploadEvent.json`, `Content-Type: application/json`.
        case json
        /// ntfy's publish format: a plain message body and `Title`, `Tags`, `Click` headers.
        case ntfy
    }

    public var secure: Bool
    /// Without brackets for an IPv6 literal.
    public var host: String
    public var port: Int
    /// The request target: the path and query, at least `/`.
    public var target: String
    /// The URL as configured, for log lines.
    public var text: String

    public init?(parsing text: String) {
        let rest: Substring
        if text.hasPrefix("https://") {
            secure = true
            rest = text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            secure = false
            rest = text.dropFirst(7)
        } else {
            return nil
        }
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 >= 0x80 }) else { return nil }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var afterAuthority = rest.dropFirst(authority.count)
        if let fragment = afterAuthority.firstIndex(of: "#") { afterAuthority = afterAuthority[..<fragment] }
        // Credentials in the URL would end up in logs; ntfy takes a token in the topic URL's query instead.
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        } else {
            hostPart = authority
        }
        guard !hostPart.isEmpty else { return nil }
        if let portPart {
            guard let port = Int(portPart), (1...65535).contains(port) else { return nil }
            self.port = port
        } else {
            port = secure ? 443 : 80
        }
        host = String(hostPart)
        target = afterAuthority.isEmpty ? "/" : (afterAuthority.hasPrefix("/") ? String(afterAuthority) : "/" + afterAuthority)
        self.text = text
    }

    /// The `Host` header (RFC 9112 §3.2): the port only when it is not the scheme's.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The format `format` means for this URL: `auto` is ntfy for ntfy.sh and its subdomains.
    public func resolved(_ format: Format) -> Format {
        guard format == .auto else { return format }
        let name = host.lowercased()
        return name == "ntfy.sh" || name.hasSuffix(".ntfy.sh") ? .ntfy : .json
    }
}
