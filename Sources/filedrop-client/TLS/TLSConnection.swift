import CSSL
import FiledropClient
import Glibc

/// One client TLS connection made with libssl: TCP with a connect timeout, SNI, ALPN
/// `http/1.1`, TLS 1.2 or 1.3, the certificate verified against `TLSAnchors` with the host
/// name (or IP address) checked by `SSL_set1_host`. Blocking until the handshake is done;
/// the relay then switches the socket to non-blocking.
final class TLSConnection {
    /// What the handshake ended with.
    enum Handshake {
        case verified
        /// The server is up and speaks TLS, but its certificate did not verify.
        case untrusted(reason: String)
    }

    let descriptor: Int32
    let ssl: OpaquePointer
    private let context: OpaquePointer

    /// Connects and handshakes; throws only when there is no TLS server to judge.
    init(host: String, port: Int, anchors: TLSAnchors, timeout: Double) throws(TLSConnectionError) {
        let host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        descriptor = try Self.connect(host: host, port: port, timeout: timeout)
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            close(descriptor)
            throw .setup("cannot create a TLS context")
        }
        // The context is complete before SSL_new, which copies its verify mode.
        do throws(TLSConnectionError) {
            try Self.configure(context, anchors: anchors)
        } catch {
            SSL_CTX_free(context)
            close(descriptor)
            throw error
        }
        self.context = context
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            close(descriptor)
            throw .setup("cannot create a TLS connection")
        }
        self.ssl = ssl
        try configure(host: host)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
        close(descriptor)
    }

    /// SSL_connect(3) on the blocking socket (its timeouts bound it).
    func handshake() throws(TLSConnectionError) -> Handshake {
        ERR_clear_error()
        let connected = SSL_connect(ssl) == 1
        let result = SSL_get_verify_result(ssl)
        // Verified means a certificate came and its chain checked out, not only "connected".
        if connected, result == X509_V_OK, let certificate = SSL_get1_peer_certificate(ssl) {
            X509_free(certificate)
            return .verified
        }
        if result != X509_V_OK {
            return .untrusted(reason: String(cString: X509_verify_cert_error_string(result)))
        }
        if connected { return .untrusted(reason: "the server sent no certificate") }
        throw .handshake("TLS handshake failed: \(Self.libraryError())")
    }

    /// Sends close_notify (RFC 8446 §6.1), without waiting for the server's.
    func shutdown() {
        _ = SSL_shutdown(ssl)
    }

    private static func configure(_ context: OpaquePointer, anchors: TLSAnchors) throws(TLSConnectionError) {
        guard filedrop_ssl_ctx_set_min_tls12(context) == 1 else { throw .setup("cannot require TLS 1.2") }
        try anchors.install(in: context)
        let alpn: [UInt8] = [8] + Array("http/1.1".utf8)
        guard SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0 else { throw .setup("cannot offer ALPN") }
        // The relay repeats a write that would block with what is pending then, which may
        // have moved in memory; a partial write counts as progress.
        _ = filedrop_ssl_ctx_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
    }

    private func configure(host: String) throws(TLSConnectionError) {
        guard SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER != 0 else { throw .setup("certificate verification is not on") }
        guard SSL_set_fd(ssl, descriptor) == 1 else { throw .setup("cannot attach the socket") }
        // RFC 6066 §3: SNI carries DNS names only, never an address literal.
        if !Self.isAddressLiteral(host) {
            _ = host.withCString {
                SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
            }
        }
        // OpenSSL 3: an address literal is matched against IP SANs, a name against DNS SANs.
        guard SSL_set1_host(ssl, host) == 1 else { throw .setup("cannot check the host name \(host)") }
    }

    private static func isAddressLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// A TCP connection to the first address of `host` that answers within `timeout`.
    private static func connect(host: String, port: Int, timeout: Double) throws(TLSConnectionError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .connect("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let descriptor = socket(
                address.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard descriptor >= 0 else { continue }
            if Glibc.connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 || errno == EINPROGRESS,
                let failure = waitConnected(descriptor, timeout: timeout)
            {
                lastError = failure
                close(descriptor)
                continue
            } else if errno != 0, errno != EINPROGRESS {
                lastError = String(cString: strerror(errno))
            }
            let flags = fcntl(descriptor, F_GETFL)
            _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
            var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            var one: Int32 = 1
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return descriptor
        }
        throw .connect("cannot connect to \(host) port \(port): \(lastError)")
    }

    /// nil once the non-blocking connect completed; else why it did not.
    private static func waitConnected(_ descriptor: Int32, timeout: Double) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&poller, 1, Int32(timeout * 1000))
        guard ready > 0 else { return ready == 0 ? "timed out" : String(cString: strerror(errno)) }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
        return error == 0 ? nil : String(cString: strerror(error))
    }

    /// The oldest queued libssl error as a sentence, and the queue cleared.
    static func libraryError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "the connection closed" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
