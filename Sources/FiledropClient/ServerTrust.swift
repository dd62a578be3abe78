import Foundation

/// Whom a client trusts to be the `https://` server it talks to. Every choice verifies the
/// certificate for real (signature chain, validity dates, host name); none turns checks off.
///
/// - On Apple platforms a URLSession delegate evaluates the server's `SecTrust`: with the
///   system's anchors (`.system`), with only the given certificate as anchor
///   (`.certificateAuthority`), or with whichever certificate of the presented chain has the
///   pinned SHA-256 as the only anchor (`.pinnedCertificate`, CA or leaf).
/// - On Linux, swift-corelibs-foundation's URLSession (libcurl) never asks its delegate
///   about server trust and trusts only the CA bundle libcurl was built with
///   (`/etc/ssl/certs/ca-certificates.crt` on Debian). Its `URLSessionCertificateAuthorityInfoFile`
///   variable is read on Android only, and libcurl ignores `SSL_CERT_FILE` and
///   `CURL_CA_BUNDLE`. So there `.system` is all URLSession itself can do; the other two need
///   `FiledropClient.tlsRelay`: a plain-HTTP address on this machine whose owner makes the
///   TLS connection and verifies it (the `filedrop` command does so with libssl). Without a
///   relay they fail with `FiledropClientError.untrustedServer` rather than fall back.
public enum ServerTrust: Sendable, Equatable {
    /// The operating system's trust store.
    case system
    /// Only certificates issued by this CA (a PEM or DER file); the CA may also be the
    /// server's own certificate (self-signed, or trusted as a leaf like curl's `--cacert`).
    case certificateAuthority(URL)
    /// Whichever certificate of the server's chain has this SHA-256 becomes the only anchor.
    case pinnedCertificate(CertificateFingerprint)
}
