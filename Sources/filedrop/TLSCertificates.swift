import FiledropCore
import FiledropIO
import FiledropServer
import Glibc

/// The daemon's side of HTTPS: where the certificate comes from, made into the context new
/// HTTPS connections use. `tls = files`: the files or systemd credentials, read again on
/// reload. `tls = auto`: the local CA in tls-dir issues a short-lived certificate for every
/// name and address the machine has, again when they change or half its life has passed.
/// Used on the main loop only.
///
/// The LocalSend receiver (`localsend = on`) speaks HTTPS on its own port with this same
/// certificate, so there is one key and one fingerprint to check. With `tls = off` it still
/// needs one: the certificates are then made as `tls = auto` makes them (the local CA in
/// tls-dir), for the LocalSend port alone. LocalSend senders pin the fingerprint rather than
/// a CA, and a client that wants to verify can trust the CA as for the HTTPS port.
final class TLSCertificates {
    private var configuration: Configuration
    /// The local CA (`auto`), loaded once per tls-dir.
    private(set) var authority: LocalCertificateAuthority?
    /// What the current `auto` certificate was issued for, and when it is due again.
    private var issuedFor: ServedNames?
    private var renewAt: Int64 = .max
    /// Set by an address change; names are read again once things settle (DHCP and IPv6
    /// autoconfiguration come in bursts).
    private var addressesChangedAt: UInt64?

    /// Whether the kernel can take over the record layer (the `tls` upper-layer protocol):
    /// then sendfile stays zero-copy over HTTPS; else records are encrypted in user space.
    static let kernelTLSAvailable: Bool = {
        guard let text = readTextFile("/proc/sys/net/ipv4/tcp_available_ulp") else { return false }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("tls")
    }()

    /// How long after an address change the names are read again.
    private static let settleNanoseconds: UInt64 = 500_000_000

    init(configuration: Configuration) {
        self.configuration = Self.effective(configuration)
    }

    /// `tls = off` with `localsend = on` issues as `auto` does, for the LocalSend port.
    private static func effective(_ configuration: Configuration) -> Configuration {
        var effective = configuration
        if configuration.tls == .off && configuration.localsend { effective.tls = .auto }
        return effective
    }

    /// Whether certificates are needed at all: HTTPS is on, or the LocalSend receiver is.
    static func needed(_ configuration: Configuration) -> Bool {
        configuration.tls != .off || configuration.localsend
    }

    /// Whether the certificate is issued here (`auto`), so it follows the machine's addresses.
    var issuesOwn: Bool { configuration.tls == .auto }

    /// A context from the configured certificate; every failure is a sentence naming the
    /// file (the daemon exits 2 at start, keeps the running context on reload).
    func makeContext() throws(StartupError) -> TLSContext {
        switch configuration.tls {
        case .off:
            throw StartupError(message: "tls is off", exitCode: StartupError.invalidConfiguration)
        case .files:
            return try context(from: readCredentialFiles())
        case .auto:
            return try issueContext(for: ServedNames.current(allowedHosts: configuration.allowedHosts))
        }
    }

    /// Reload: the new configuration's certificate when it needs one (files are read again,
    /// for a renewed pair; `auto` issues again for another tls-dir or save-dir, or when the
    /// names it serves changed, allowed-hosts among them). Nil: the running certificate stays,
    /// so a reload that changes nothing of TLS hands clients no new certificate.
    func reload(_ next: Configuration) throws(StartupError) -> TLSContext? {
        let previous = configuration
        let next = Self.effective(next)
        if next.tls == .auto && previous.tls == .auto && next.tlsDirectory == previous.tlsDirectory
            && next.saveDirectory == previous.saveDirectory
            && issuedFor == ServedNames.current(allowedHosts: next.allowedHosts)
        {
            configuration = next
            return nil
        }
        configuration = next
        if next.tlsDirectory != previous.tlsDirectory { authority = nil }
        do {
            return try makeContext()
        } catch {
            configuration = previous
            throw error
        }
    }

    func addressesChanged(now: UInt64) {
        addressesChangedAt = addressesChangedAt ?? now
    }

    /// Called every tick: a new `auto` context when the machine's names changed (after an
    /// address change has settled) or the certificate is half-way through its life.
    func renewIfDue(now: UInt64, wallClock: Int64) -> Result<TLSContext, StartupError>? {
        guard configuration.tls == .auto else { return nil }
        let settled = addressesChangedAt.map { now &- $0 >= Self.settleNanoseconds } ?? false
        guard settled || wallClock >= renewAt else { return nil }
        addressesChangedAt = nil
        let names = ServedNames.current(allowedHosts: configuration.allowedHosts)
        guard names != issuedFor || wallClock >= renewAt else { return nil }
        // Key generation and one ECDSA signature: well under a millisecond, so on the loop.
        return Result { () throws(StartupError) in try issueContext(for: names) }
    }

    /// What the log and status line say about the certificate.
    var summary: String {
        if let authority, let issuedFor {
            return "filedrop's own CA, SHA-256 \(authority.fingerprintSHA256) (install it from /ca.crt; /trust says how); "
                + "server certificate for \(issuedFor)"
        }
        return "certificate from \(configuration.tlsCertificateFile ?? "files")"
    }

    // MARK: - auto

    private func issueContext(for names: ServedNames) throws(StartupError) -> TLSContext {
        let authority = try loadAuthority()
        let issued: IssuedCertificate
        do {
            issued = try authority.issueServerCertificate(
                dnsNames: names.dnsNames, ipAddresses: names.ipAddresses,
                now: Clock.wallClockSeconds())
            // For operators who want to look at it; the key stays in memory only.
            try? authority.writeServerCertificateFile(issued)
        } catch {
            throw StartupError(message: "tls = auto: \(error.description)", exitCode: StartupError.invalidConfiguration)
        }
        let context = try self.context(
            from: TLSCredentials(
                certificateChainPEM: issued.certificateChainPEM, privateKeyPEM: issued.privateKeyPEM,
                certificateSource: "the server certificate issued by \(authority.certificatePath)",
                keySource: "the key issued with it"))
        issuedFor = names
        renewAt = issued.notBefore + (issued.notAfter - issued.notBefore) / 2
        return context
    }

    private func loadAuthority() throws(StartupError) -> LocalCertificateAuthority {
        if let authority { return authority }
        let directory = configuration.tlsDirectory
        try refuseInsideSaveDirectory(directory)
        let authority: LocalCertificateAuthority
        do {
            authority = try LocalCertificateAuthority.loadOrCreate(directory: directory, commonName: Self.authorityName)
        } catch {
            throw StartupError(message: "tls = auto: \(error.description)", exitCode: StartupError.invalidConfiguration)
        }
        // Once it exists, the real path too: a symlink must not lead into save-dir either.
        try refuseInsideSaveDirectory(directory, resolved: true)
        self.authority = authority
        return authority
    }

    /// The CA key must never be downloadable: tls-dir may not be save-dir or inside it.
    private func refuseInsideSaveDirectory(_ directory: String, resolved: Bool = false) throws(StartupError) {
        let path = resolved ? Self.realPath(directory) : Self.absolute(directory)
        let save = resolved ? Self.realPath(configuration.saveDirectory) : Self.absolute(configuration.saveDirectory)
        guard let path, let save else { return }
        if path == save || path.hasPrefix(save.hasSuffix("/") ? save : save + "/") {
            throw StartupError(
                message: "tls-dir \(directory) is inside save-dir \(configuration.saveDirectory), where "
                    + "its CA key could be downloaded; choose a directory outside it", exitCode: StartupError.invalidConfiguration
            )
        }
    }

    private static func absolute(_ path: String) -> String? {
        var base = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
            guard getcwd(&buffer, buffer.count) != nil else { return nil }
            base = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
        }
        var parts: [Substring] = []
        for part in base.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The CA's name, as a device lists it among its trusted certificates.
    static var authorityName: String { "filedrop CA on \(ServedNames.hostNames().first ?? "this machine")" }

    // MARK: - files

    private func readCredentialFiles() throws(StartupError) -> TLSCredentials {
        guard let certificate = configuration.tlsCertificateFile, let key = configuration.tlsKeyFile else {
            throw StartupError(
                message: "tls = files needs tls-cert and tls-key (--tls-cert, --tls-key), "
                    + "or the systemd credentials tls.crt and tls.key (LoadCredential=)",
                exitCode: StartupError.invalidConfiguration)
        }
        return TLSCredentials(
            certificateChainPEM: try read(certificate, what: "TLS certificate"),
            privateKeyPEM: try read(key, what: "TLS key"),
            certificateSource: certificate, keySource: key)
    }

    private func read(_ path: String, what: String) throws(StartupError) -> [UInt8] {
        guard let bytes = readSmallFile(path) else {
            throw StartupError(
                message: "cannot read the \(what) \(path): \(String(cString: strerror(errno)))",
                exitCode: StartupError.invalidConfiguration)
        }
        return bytes
    }

    private func context(from credentials: TLSCredentials) throws(StartupError) -> TLSContext {
        do {
            return try TLSContext(credentials: credentials, kernelTLS: Self.kernelTLSAvailable)
        } catch {
            throw StartupError(message: error.description, exitCode: StartupError.invalidConfiguration)
        }
    }
}
