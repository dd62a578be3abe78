import CLinux
import Glibc
import Synchronization

/// A non-blocking listening TCP socket: bound by us, or adopted from systemd.
public final class ListeningSocket: Sendable {
    public let descriptor: Int32
    /// The address actually bound (port 0 resolved).
    public let address: SocketAddress
    /// Whether the socket came from systemd (LISTEN_FDS) rather than from `bind`. systemd
    /// keeps its own copy and queues connections for the next start, so at shutdown such a
    /// socket is only no longer polled; one we bound ourselves is closed, so that new
    /// connections are refused at once instead of waiting unanswered in its backlog.
    public let isInherited: Bool
    private let closed = Atomic<Bool>(false)

    /// Binds and listens. An empty host means `[::]` with IPV6_V6ONLY off: IPv4 and IPv6 on
    /// one socket.
    public static func bind(host: String, port: UInt16, backlog: Int32 = 1024) throws(SystemError) -> ListeningSocket {
        guard let address = SocketAddress(host: host, port: port) else {
            throw SystemError(call: "inet_pton(\(host))", errno: EINVAL)
        }
        let fd = try syscall("socket") {
            socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            var on: Int32 = 1
            try syscall("setsockopt(SO_REUSEADDR)") {
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            if address.family == AF_INET6 {
                var v6only: Int32 = host.isEmpty ? 0 : 1
                try syscall("setsockopt(IPV6_V6ONLY)") {
                    setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &v6only, socklen_t(MemoryLayout<Int32>.size))
                }
            }
            _ = try address.withSockaddr { (pointer, length) throws(SystemError) in
                _ = try syscall("bind(\(address))") { Glibc.bind(fd, pointer, length) }
            }
            try syscall("listen") { listen(fd, backlog) }
            return try ListeningSocket(descriptor: fd, inherited: false)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Takes ownership of an already listening descriptor (socket activation).
    public convenience init(adopting descriptor: Int32) throws(SystemError) {
        try self.init(descriptor: descriptor, inherited: true)
    }

    private init(descriptor: Int32, inherited: Bool) throws(SystemError) {
        self.descriptor = descriptor
        self.isInherited = inherited
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SystemError) in
                try syscall("getsockname") { getsockname(descriptor, address, &length) }
            }
        }
        self.address = SocketAddress(storage: storage, length: length)
        let flags = try syscall("fcntl(F_GETFL)") { fcntl(descriptor, F_GETFL) }
        try syscall("fcntl(F_SETFL)") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
        // Accepted sockets inherit TCP_NODELAY from the listener (Linux copies the option on
        // accept): set once here instead of once per connection. A response goes out in one
        // sendmsg and must not wait for an ACK behind Nagle. Not a TCP socket: nothing to set.
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        // A connection is handed over once its first bytes are in (TCP_DEFER_ACCEPT): the read
        // after accept finds the request, so a one-request connection is never registered with
        // epoll, nor wakes a loop for its first bytes. A client's request follows the handshake
        // within a round trip; a silent connection is handed over after about a second anyway
        // (the kernel counts in SYN-ACK retransmissions, as nginx's `deferred`), and our own
        // timeouts and limits apply to it from then on.
        var deferSeconds: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_DEFER_ACCEPT, &deferSeconds, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Accepts one pending connection, non-blocking and close-on-exec.
    func accept() throws(SystemError) -> IOResult<(Int32, SocketAddress)> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SystemError) -> IOResult<Int32> in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SystemError) -> IOResult<Int32> in
                try nonBlockingSyscall("accept4") {
                    filedrop_accept4(descriptor, address, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .done(let fd): return .done((fd, SocketAddress(storage: storage, length: length)))
        }
    }

    /// Closes the descriptor; later calls do nothing (shutdown closes a bound socket early,
    /// and the end of `HTTPServer.run` closes every socket).
    public func close() {
        if !closed.exchange(true, ordering: .relaxed) { Glibc.close(descriptor) }
    }
}
