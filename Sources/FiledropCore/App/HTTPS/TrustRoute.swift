/// The routes that help a person trust this server's HTTPS certificate. A device needs them
/// before it can trust HTTPS, so they are served over plain HTTP too and need no password in
/// any access mode: the CA certificate and its fingerprint are public by nature.
enum TrustRoute: Sendable, Equatable {
    /// `/ca.crt`: the CA certificate, DER.
    case certificate
    /// `/ca.mobileconfig`: the same certificate in an iOS/macOS configuration profile.
    case profile
    /// `/trust`: how to install it, device by device.
    case page

    init?(path: Substring) {
        switch path {
        case "/ca.crt": self = .certificate
        case "/ca.mobileconfig": self = .profile
        case "/trust": self = .page
        default: return nil
        }
    }

    /// The trust routes and the stylesheet `/trust` links to: what a device must be able to
    /// load before it trusts the certificate (over plain HTTP, without a password).
    static func isNeededBeforeTrust(_ path: Substring) -> Bool {
        path == "/style.css" || TrustRoute(path: path) != nil
    }
}
