/// A browser's first visit over plain HTTP while HTTPS is on with filedrop's own CA: instead
/// of a redirect to a certificate warning, `/trust` in the reader's language, with a link on
/// to the address asked for over HTTPS and a script (`first-visit.js`) that goes there by
/// itself when a request to the HTTPS port succeeds, which it does only once this device
/// trusts the CA.
struct FirstVisit: Sendable, Equatable {
    /// The file of the web root the page loads; served over plain HTTP like the stylesheet.
    static let scriptName = "first-visit.js"

    /// Where the link goes: the same path and query over HTTPS, or the page for `/trust`.
    let secureURL: String
    /// The HTTPS origin the script asks, nil when CSP cannot name it (see `init`).
    let probedOrigin: String?

    init(secureURL: String, https: HTTPSURL) {
        self.secureURL = secureURL
        // A CSP host-source (CSP3 §2.3.1) is letters, digits, `-` and dots: an IPv6 literal or
        // a name with `_` cannot be named, and a wider source would allow more than this one
        // request. Such a visit keeps the link without the script.
        let expressible = https.host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x2E
        }
        probedOrigin = expressible ? https.origin : nil
    }

    var probes: Bool { probedOrigin != nil }

    /// `/trust`'s policy, plus the script from this origin and the one request it makes.
    /// Made per visit, unlike the other policies: the HTTPS origin is the host the browser
    /// named.
    var policy: String {
        guard let probedOrigin else { return SecurityPolicy.trustPage.contentSecurityPolicy }
        return SecurityPolicy.firstVisit(probing: probedOrigin).contentSecurityPolicy
    }
}
