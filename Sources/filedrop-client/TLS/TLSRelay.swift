import CLinux
import FiledropClient
import Foundation
import Glibc

/// The `filedrop` command's way to verify a server URLSession cannot be told to trust on
/// Linux (see `ServerTrust`): a listener on 127.0.0.1, port chosen by the kernel, that turns
/// each connection URLSession makes into a TLS connection to the server which libssl
/// verifies against `anchors`, host name included, before a byte is relayed. A connection
/// that fails verification (or cannot reach the server) is closed unanswered and the reason
/// kept for the error message.
/// It lives as long as the command.
final class TLSRelay: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`, for `FiledropClient.tlsRelay`.
    let url: URL
    private let listener: Int32
    private let host: String
    private let port: Int
    private let anchors: TLSAnchors
    private let timeout: Double
    private let lock = NSLock()
    private var firstFailure: FiledropClientError?

    init(host: String, port: Int, anchors: TLSAnchors, timeout: Double) throws(TLSConnectionError) {
        self.host = host
        self.port = port
        self.anchors = anchors
        self.timeout = timeout
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        guard listener >= 0 else { throw .setup("cannot open the relay socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw .setup("cannot listen on 127.0.0.1 for the relay: \(String(cString: strerror(errno)))")
        }
        url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        let relay = self
        Thread.detachNewThread { relay.acceptConnections() }
    }

    /// Why the first connection to the server failed, if one did: `.untrustedServer` when
    /// the certificate did not verify, `.network` when there was no TLS server to judge.
    var failure: FiledropClientError? { lock.withLock { firstFailure } }

    private func acceptConnections() {
        while true {
            let client = filedrop_accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let relay = self
            Thread.detachNewThread { relay.carry(client) }
        }
    }

    private func carry(_ client: Int32) {
        defer { close(client) }
        do throws(TLSConnectionError) {
            let connection = try TLSConnection(host: host, port: port, anchors: anchors, timeout: timeout)
            switch try connection.handshake() {
            case .verified:
                TLSRelayPump(plain: client, tls: connection, idleTimeout: timeout).run()
            case .untrusted(let reason):
                record(.untrustedServer("\(reason) (for \(host) port \(port))"))
            }
        } catch {
            record(.network(error.description))
        }
    }

    private func record(_ failure: FiledropClientError) {
        lock.withLock { if firstFailure == nil { firstFailure = failure } }
    }
}
