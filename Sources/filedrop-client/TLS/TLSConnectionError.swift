/// Why the client's own TLS connection (the trust check or the relay's) failed.
enum TLSConnectionError: Error, CustomStringConvertible {
    /// No TCP connection: refused, unreachable, timed out, unknown host.
    case connect(String)
    /// A certificate or context could not be set up (a bad CA file).
    case setup(String)
    /// The handshake broke for a reason other than trust (not a TLS server, a reset).
    case handshake(String)

    var description: String {
        switch self {
        case .connect(let reason), .setup(let reason), .handshake(let reason): reason
        }
    }
}
