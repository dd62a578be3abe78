/// The address a phone should open to reach this server, for the page's QR code and its
/// copyable link. The address bar is the right answer when it names the machine on the
/// network; opened on the machine itself (`localhost`, `127.0.0.1`, `[::1]`) it would send the
/// phone to the phone, so the daemon's own LAN URLs are used instead.
public struct PhoneAddress: Sendable, Equatable {
    /// The URLs the daemon listens on as a person on the LAN opens them (`LANURLs` in the
    /// daemon: every address of a wildcard listener; HTTPS ones when HTTPS is on).
    public var lanURLs: [String]

    public init(lanURLs: [String]) {
        self.lanURLs = lanURLs
    }

    /// The LAN URLs another device can reach: without loopback ones.
    public var reachableURLs: [String] {
        lanURLs.filter { !Self.isLoopback(host: Self.host(ofURL: $0)) }
    }

    /// Listening on loopback only: no other device can open the page at all (false when the
    /// daemon named no URL, as in tests that build the app alone).
    public var isLoopbackOnly: Bool {
        !lanURLs.isEmpty && reachableURLs.isEmpty
    }

    /// `pageURL`, the address the request came with, unless that is a loopback one and the
    /// machine has a LAN address: then the first of those.
    public func url(forPageURL pageURL: String?) -> String? {
        guard let pageURL else { return reachableURLs.first }
        if Self.isLoopback(host: Self.host(ofURL: pageURL)), let lan = reachableURLs.first { return lan }
        return pageURL
    }

    /// `localhost` (and names under it, RFC 6761 §6.3), 127.0.0.0/8 and ::1.
    static func isLoopback(host: Substring) -> Bool {
        let name = host.lowercased()
        return name == "localhost" || name.hasSuffix(".localhost") || name.hasPrefix("127.") || name == "::1" || name == "[::1]"
    }

    /// The host of `scheme://host[:port]/...`, brackets of an IPv6 literal removed.
    static func host(ofURL url: String) -> Substring {
        var afterScheme = url[...]
        if let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") {
            afterScheme = url[url.index(colon, offsetBy: 3)...]
        }
        let authority = afterScheme.prefix { $0 != "/" }
        if authority.hasPrefix("[") {
            return authority.dropFirst().prefix { $0 != "]" }
        }
        return authority.prefix { $0 != ":" }
    }
}
