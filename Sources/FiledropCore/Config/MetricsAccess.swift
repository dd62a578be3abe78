/// Who may read `GET /metrics` (`metrics-access`), whatever the access mode: the counters
/// tell how busy the drop is and when files arrive, which the access mode may keep private.
///
/// The default is `loopback`: a Prometheus (or node exporter's textfile, or a person with
/// curl) on the same machine scrapes it without a password, and nobody on the LAN sees it.
/// Behind a reverse proxy on the same machine every client is loopback: use `password`.
public enum MetricsAccess: String, Sendable, Equatable, CaseIterable {
    /// No /metrics: 404, as if it did not exist.
    case off
    /// Only peers on 127.0.0.0/8 and ::1; others get 403.
    case loopback
    /// The same password as the access modes use (`password-hash`), from any address.
    case password
    /// Anyone who can reach the port.
    case open
}
