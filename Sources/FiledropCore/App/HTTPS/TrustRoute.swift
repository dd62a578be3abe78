/// The routes that help a person trust this server's HTTPS certificate. A device needs them
/// before it can trust HTTPS, so they are served over plain HTTP too and need no password in
/// any access mode: the CA certificate and its fingerprint are public by nature. `Route`
/// reads them from the path (`/ca.crt`, `/ca.mobileconfig`, `/trust`).
public enum TrustRoute: Sendable, Equatable {
    /// `/ca.crt`: the CA certificate, DER.
    case certificate
    /// `/ca.mobileconfig`: the same certificate in an iOS/macOS configuration profile.
    case profile
    /// `/trust`: how to install it, device by device.
    case page
}
