import Foundation

/// The servers a person has trusted on first use, as ssh's `known_hosts` remembers hosts:
/// `~/.config/filedrop/known_servers` (`$XDG_CONFIG_HOME/filedrop/known_servers` when set).
///
/// One server per line, `HOST:PORT SHA256-FINGERPRINT`, where HOST is a name or address as
/// written in the URL (lower case, IPv6 in brackets) and the fingerprint is the certificate
/// trusted for it (usually the CA a filedrop `auto` server made), `AB:CD:...` or plain hex.
/// Blank lines and lines starting with `#` are ignored, and so is anything after the
/// fingerprint (a note).
///
/// ```
/// # filedrop known servers
/// 192.168.1.20:8443 5E:3A:...:9C  laptop, trusted 2025-05-01
/// [fe80::1c2a]:8443 5e3a...9c
/// ```
public struct KnownServers: Sendable, Equatable {
    /// One remembered server, with the line it came from (1-based), so a person can be
    /// told which line to remove.
    public struct Entry: Sendable, Equatable {
        public var address: String
        public var fingerprint: CertificateFingerprint
        public var line: Int

        public init(address: String, fingerprint: CertificateFingerprint, line: Int) {
            self.address = address
            self.fingerprint = fingerprint
            self.line = line
        }
    }

    public private(set) var entries: [Entry]
    /// Lines that are neither blank, a comment nor an entry (skipped, worth a warning).
    public private(set) var malformedLines: [Int]

    /// Reads the file's text; an entry's line number counts every line, comments included.
    public init(parsing text: String) {
        entries = []
        malformedLines = []
        // "\r\n" is one Character in Swift: a file saved with CRLF splits here too.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, line) in lines.enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            guard fields.count >= 2, Self.isAddress(first),
                let fingerprint = CertificateFingerprint(String(fields[1]))
            else {
                malformedLines.append(index + 1)
                continue
            }
            entries.append(Entry(address: first.lowercased(), fingerprint: fingerprint, line: index + 1))
        }
    }

    /// Every entry for `address` (`host:port`), in file order.
    public func entries(for address: String) -> [Entry] {
        let address = address.lowercased()
        return entries.filter { $0.address == address }
    }

    /// The line that remembers `fingerprint` for `address`, as the file stores it.
    public static func line(address: String, fingerprint: CertificateFingerprint, note: String? = nil) -> String {
        let note = note.map { "  " + $0.filter { $0 != "\n" && $0 != "\r" } } ?? ""
        return "\(address.lowercased()) \(fingerprint)\(note)\n"
    }

    /// `host:port` for a URL, as entries name servers: lower case, IPv6 in brackets, the
    /// scheme's default port when the URL has none.
    public static func address(of url: URL) -> String? {
        guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        return "\(host):\(port)"
    }

    /// `name:8443` or `[v6]:8443`: a host and a decimal port.
    private static func isAddress(_ text: Substring) -> Bool {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex else { return false }
        let port = text[text.index(after: colon)...]
        guard !port.isEmpty, port.allSatisfy(\.isASCIIDigit), let number = Int(port), number <= 65535 else { return false }
        let host = text[..<colon]
        if host.hasPrefix("[") { return host.hasSuffix("]") && host.count > 2 }
        return !host.contains(":") && !host.contains("/")
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
