import FiledropCore
import FiledropIO
import Glibc

/// The daemon's side of HTTPS: where the certificate comes from (`tls = files`: the files
/// or systemd credentials; `tls = auto`: the local CA), made into the context new HTTPS
/// connections use, and made again on reload.
struct TLSCertificates {
    let configuration: Configuration
    /// Whether the kernel can take over the record layer (the `tls` upper-layer protocol):
    /// then sendfile stays zero-copy over HTTPS; else records are encrypted in user space.
    static let kernelTLSAvailable: Bool = {
        guard let text = readTextFile("/proc/sys/net/ipv4/tcp_available_ulp") else { return false }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("tls")
    }()

    /// A context from the configured certificate; every failure is a sentence naming the
    /// file (the daemon exits 2 at start, keeps the running context on reload).
    func makeContext() throws(StartupError) -> TLSContext {
        switch configuration.tls {
        case .off:
            throw StartupError(message: "tls is off", exitCode: 2)
        case .files:
            return try context(from: readCredentialFiles())
        case .auto:
            throw StartupError(message: "tls = auto is not available in this build", exitCode: 2)
        }
    }

    private func readCredentialFiles() throws(StartupError) -> TLSCredentials {
        guard let certificate = configuration.tlsCertificateFile, let key = configuration.tlsKeyFile else {
            throw StartupError(message: "tls = files needs tls-cert and tls-key (--tls-cert, --tls-key), "
                + "or the systemd credentials tls.crt and tls.key (LoadCredential=)", exitCode: 2)
        }
        return TLSCredentials(certificateChainPEM: try read(certificate, what: "TLS certificate"),
                              privateKeyPEM: try read(key, what: "TLS key"),
                              certificateSource: certificate, keySource: key)
    }

    private func read(_ path: String, what: String) throws(StartupError) -> [UInt8] {
        guard let bytes = readSmallFile(path) else {
            throw StartupError(message: "cannot read the \(what) \(path): \(String(cString: strerror(errno)))", exitCode: 2)
        }
        return bytes
    }

    private func context(from credentials: TLSCredentials) throws(StartupError) -> TLSContext {
        do {
            return try TLSContext(credentials: credentials, kernelTLS: Self.kernelTLSAvailable)
        } catch {
            throw StartupError(message: error.description, exitCode: 2)
        }
    }
}
