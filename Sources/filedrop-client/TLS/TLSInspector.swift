import FiledropClient

/// The one handshake `TrustOnFirstUse` asks for: verified against the system store with
/// the host name checked, and the chain read whether or not it verified. Nothing is sent
/// over it; it is closed right after.
struct TLSInspector {
    var host: String
    var port: Int
    var timeout: Double

    func inspect() throws(FiledropClientError) -> TrustOnFirstUse.Inspection {
        do throws(TLSConnectionError) {
            let connection = try TLSConnection(host: host, port: port, anchors: .system, timeout: timeout)
            let handshake = try connection.handshake()
            let chain = PeerChain.certificates(of: connection.ssl)
            switch handshake {
            case .verified:
                connection.shutdown()
                return .init(trustedBySystem: true, chain: chain)
            case .untrusted(let reason):
                return .init(trustedBySystem: false, chain: chain, systemFailure: reason)
            }
        } catch {
            throw .network(error.description)
        }
    }
}
