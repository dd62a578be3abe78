import CLinux
import Glibc

/// Why an accepted connection is not served. Each is answered with a short canned
/// `503 Service Unavailable` (RFC 9110 §15.6.4) carrying `Retry-After` (§10.2.3) and a
/// sentence, then closed: a browser or script learns why and when to retry, where a bare
/// close or reset looks like a broken network.
enum Refusal {
    /// Every slot is taken (a loop accepted one more while the others paused accepting).
    case serverFull
    /// The client's address holds `max-connections-per-client` connections.
    case clientAtCap
    /// The server is busy and the client's address holds its fair share of the free slots.
    case clientOverShare
    /// The server is shutting down.
    case shuttingDown

    private var sentence: String {
        switch self {
        case .serverFull: "The server is serving as many connections as it may; try again in a moment."
        case .clientAtCap: "Your address has as many connections open as one address may; close some and try again."
        case .clientOverShare: "The server is busy and your address has its share of connections open; try again in a moment."
        case .shuttingDown: "The server is shutting down; try again in a moment."
        }
    }

    private var retryAfterSeconds: Int {
        switch self {
        case .serverFull, .clientOverShare: 1
        case .clientAtCap, .shuttingDown: 5
        }
    }

    /// The whole response; `Connection: close` since the socket closes right after it.
    var responseBytes: [UInt8] {
        let body = sentence + "\n"
        return Array(
            ("HTTP/1.1 503 Service Unavailable\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: \(body.utf8.count)\r\n"
                + "Retry-After: \(retryAfterSeconds)\r\n"
                + "Connection: close\r\n\r\n" + body).utf8)
    }

    /// Answers `descriptor` (non-blocking, just accepted) and closes it; never waits.
    ///
    /// Input already queued is read away first: closing a socket with unread input makes the
    /// kernel send a reset in place of our answer (RFC 9293 §3.10.7.1, as Linux does). The
    /// answer fits any fresh send buffer; should it not, it is cut (EAGAIN is ignored).
    ///
    /// On the HTTPS port no clear-text answer can be read: the socket is just closed.
    func answer(_ descriptor: Int32, secure: Bool = false) {
        if secure {
            Glibc.close(descriptor)
            return
        }
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        for _ in 0..<4 {
            let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < scratch.count { break }
        }
        let bytes = responseBytes
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        shutdown(descriptor, Int32(SHUT_WR))
        close(descriptor)
    }
}
