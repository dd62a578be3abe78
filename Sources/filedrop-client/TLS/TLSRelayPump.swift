import CSSL
import Glibc

/// Moves bytes both ways between one plain loopback connection (URLSession's) and one
/// verified TLS connection (the server's) until either side is done, on one thread with
/// non-blocking sockets and poll(2): no direction can stall the other, which a pair of
/// blocking reads could (an upload's body while the server answers early).
struct TLSRelayPump {
    let plain: Int32
    let tls: TLSConnection
    /// Seconds with no byte in either direction before the pair is closed.
    let idleTimeout: Double

    private static let bufferSize = 64 << 10

    /// One direction's bytes that were read and not yet all written.
    private struct Pending {
        var bytes = [UInt8](repeating: 0, count: TLSRelayPump.bufferSize)
        var start = 0
        var end = 0
        var isEmpty: Bool { start == end }
    }

    func run() {
        setNonBlocking(plain)
        setNonBlocking(tls.descriptor)
        var upstream = Pending()
        var downstream = Pending()
        var plainReadable = true
        var tlsReadable = true
        var tlsWriteWaitsFor = Int16(POLLOUT)
        var tlsReadWaitsFor = Int16(POLLIN)
        while true {
            var moved = false
            if plainReadable, upstream.isEmpty {
                let count = upstream.bytes.withUnsafeMutableBytes { read(plain, $0.baseAddress, $0.count) }
                if count > 0 {
                    (upstream.start, upstream.end, moved) = (0, count, true)
                } else if count == 0 || errno != EAGAIN {
                    (plainReadable, moved) = (false, true)
                }
            }
            if !upstream.isEmpty {
                let count = upstream.bytes.withUnsafeBytes {
                    SSL_write(tls.ssl, $0.baseAddress! + upstream.start, Int32(upstream.end - upstream.start))
                }
                if count > 0 {
                    upstream.start += Int(count)
                    moved = true
                } else {
                    guard let wait = waitCondition(count) else { return }
                    tlsWriteWaitsFor = wait
                }
            }
            if tlsReadable, downstream.isEmpty {
                let count = downstream.bytes.withUnsafeMutableBytes { SSL_read(tls.ssl, $0.baseAddress, Int32($0.count)) }
                if count > 0 {
                    (downstream.start, downstream.end, moved) = (0, Int(count), true)
                } else if let wait = waitCondition(count) {
                    tlsReadWaitsFor = wait
                } else {
                    // close_notify, or the server went away: what came is all there is.
                    (tlsReadable, moved) = (false, true)
                }
            }
            if !downstream.isEmpty {
                let count = downstream.bytes.withUnsafeBytes {
                    write(plain, $0.baseAddress! + downstream.start, downstream.end - downstream.start)
                }
                if count > 0 {
                    downstream.start += count
                    moved = true
                } else if errno != EAGAIN {
                    return
                }
            }
            // URLSession closes a connection whole, never half: either end finishing ends the pair.
            if !tlsReadable, downstream.isEmpty { return }
            if !plainReadable, upstream.isEmpty {
                tls.shutdown()
                return
            }
            if !moved,
                !waitForEvents(
                    plainEvents: (plainReadable && upstream.isEmpty ? Int16(POLLIN) : 0)
                        | (downstream.isEmpty ? 0 : Int16(POLLOUT)),
                    tlsEvents: (upstream.isEmpty ? 0 : tlsWriteWaitsFor)
                        | (tlsReadable && downstream.isEmpty ? tlsReadWaitsFor : 0))
            {
                return
            }
        }
    }

    /// What the TLS socket must become before the call is repeated; nil when it failed.
    private func waitCondition(_ result: Int32) -> Int16? {
        switch SSL_get_error(tls.ssl, result) {
        case SSL_ERROR_WANT_READ: Int16(POLLIN)
        case SSL_ERROR_WANT_WRITE: Int16(POLLOUT)
        default: nil
        }
    }

    /// false when nothing happened for `idleTimeout` or a socket failed.
    private func waitForEvents(plainEvents: Int16, tlsEvents: Int16) -> Bool {
        var descriptors = [
            pollfd(fd: plain, events: plainEvents, revents: 0),
            pollfd(fd: tls.descriptor, events: tlsEvents, revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, 2, Int32(idleTimeout * 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return false }
            // POLLHUP/POLLERR are reported here; the next read or write says what happened.
            return true
        }
    }

    private func setNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }
}
