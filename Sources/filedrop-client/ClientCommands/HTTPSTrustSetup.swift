import FiledropClient
import Foundation

/// Makes the client trust an `https://` server as the command line says: `--ca`,
/// `--fingerprint`, or by default the system store, then `known_servers`, then a question on
/// the terminal (`TrustOnFirstUse`). Anything but the system store is verified by a
/// `TLSRelay`, since URLSession on Linux cannot be told whom to trust.
struct HTTPSTrustSetup {
    /// Why the command stops before any transfer: the sentence and the exit code.
    struct Failure: Error {
        var message: String
        var exitCode: ClientCommandLine.ExitCode
    }

    var url: URL
    var requested: ServerTrust?
    var knownServersFile: URL
    /// Seconds for the trust check's connect and handshake.
    var checkTimeout: Double = 10

    /// Configures `client` and returns the relay it goes through (nil for the system store).
    func apply(to client: inout FiledropClient) throws(Failure) -> TLSRelay? {
        guard let host = url.host, let address = KnownServers.address(of: url) else {
            throw Failure(message: "filedrop: no host in \(url.absoluteString)", exitCode: .usage)
        }
        let port = url.port ?? 443
        let known: KnownServers
        do {
            known = try KnownServers.read(from: knownServersFile)
        } catch {
            throw Failure(message: "filedrop: \(error)", exitCode: .transferFailed)
        }
        for line in known.malformedLines {
            ClientOutput.error("filedrop: \(knownServersFile.path) line \(line) is not \"HOST:PORT SHA256-FINGERPRINT\"; skipped")
        }
        let inspector = TLSInspector(host: host, port: port, timeout: checkTimeout)
        let decision: TrustOnFirstUse.Decision
        do {
            decision = try TrustOnFirstUse(address: address, requested: requested, known: known).decide(
                inspect: inspector.inspect,
                ask: { TrustPrompt.ask(address: address, certificate: $0, systemFailure: $1) })
        } catch {
            throw Failure(message: "filedrop: \(url.absoluteString): \(error)", exitCode: .transferFailed)
        }
        let anchors: TLSAnchors
        switch decision {
        case .system:
            client.serverTrust = .system
            return nil
        case .certificateAuthority(let file):
            do {
                anchors = try TLSAnchors.certificates(inFile: file.path)
            } catch {
                throw Failure(message: "filedrop: --ca \(file.path): \(error)", exitCode: .usage)
            }
            client.serverTrust = .certificateAuthority(file)
        case .pinned(let certificate, let remember):
            if remember {
                do {
                    try KnownServers.append(
                        address: address, fingerprint: certificate.fingerprint,
                        note: certificate.subject, to: knownServersFile)
                    ClientOutput.error("filedrop: \(address) added to \(knownServersFile.path)")
                } catch {
                    ClientOutput.error("filedrop: cannot remember the server: \(error)")
                }
            }
            anchors = .certificates([certificate.der])
            client.serverTrust = .pinnedCertificate(certificate.fingerprint)
        case .refused(let refusal):
            throw Failure(
                message: refusal.message(url: url.absoluteString, knownServersFile: knownServersFile.path),
                exitCode: .refused)
        }
        do {
            let relay = try TLSRelay(host: host, port: port, anchors: anchors, timeout: client.timeout)
            client.tlsRelay = relay.url
            return relay
        } catch {
            throw Failure(message: "filedrop: \(error)", exitCode: .transferFailed)
        }
    }
}
