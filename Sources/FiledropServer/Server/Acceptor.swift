import CLinux

/// Accepts pending connections of one listening socket on one loop. Polled (registered with
/// the loop) only while the server takes new connections: when every slot is taken or the
/// server shuts down, it is unregistered, and connections wait in the kernel's backlog.
final class Acceptor: EventHandler {
    let listener: ListeningSocket
    unowned let server: HTTPServer
    var descriptor: Int32 { listener.descriptor }
    /// Whether the loop polls the listener for this acceptor now; touched only on that loop.
    var isPolled = false
    /// Whether the listener is an HTTPS port: its connections start with a TLS handshake.
    let isSecure: Bool

    /// EPOLLEXCLUSIVE: one loop wakes per new connection, not all of them. Such registrations
    /// cannot be changed with EPOLL_CTL_MOD (EINVAL), so pausing is DEL and resuming ADD.
    static let events = EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue

    init(listener: ListeningSocket, isSecure: Bool, server: HTTPServer) {
        self.listener = listener
        self.isSecure = isSecure
        self.server = server
    }

    func handle(events: UInt32, loop: EventLoop) {
        // A bounded batch per wakeup keeps the loop responsive under a connection storm; it
        // ends early once the server is full, leaving the rest in the backlog.
        for _ in 0..<64 where server.isAccepting {
            switch try? listener.accept() {
            case .done(let (fd, peer)):
                server.accepted(fd, peer: peer, secure: isSecure ? listener.address.port : nil, loop: loop)
            case .wouldBlock, nil: return
            }
        }
    }
}
