import CSSL
import FiledropCore
import Glibc

/// One HTTP/1.1 POST (RFC 9112) to the webhook, `Connection: close`: connect with a timeout,
/// TLS for https:// with the certificate checked against the system's trust store (or
/// `SSL_CERT_FILE`) and the host name checked by `SSL_set1_host`, send, read the status line.
/// Blocking, bounded by `timeout` per step; called on the webhook's thread only.
struct WebhookPost {
    let target: NotifyTarget
    /// Seconds, for connecting and for each read or write.
    let timeout: Double
    /// A client context for https:// (nil for http://): made once, so the trust store is read once.
    let tls: OpaquePointer?

    /// Why an attempt got no status code.
    struct Failure: Error, Equatable {
        let reason: String
    }

    /// The client context: TLS 1.2 or later, peer verification on, the default trust store.
    static func makeTLSContext() -> OpaquePointer? {
        guard let context = SSL_CTX_new(TLS_client_method()) else { return nil }
        guard filedrop_ssl_ctx_set_min_tls12(context) == 1, SSL_CTX_set_default_verify_paths(context) == 1 else {
            SSL_CTX_free(context)
            return nil
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        return context
    }

    /// The answer's status code.
    func send(_ request: WebhookRequest) -> Result<Int, Failure> {
        let descriptor: Int32
        switch connect() {
        case .success(let socket): descriptor = socket
        case .failure(let failure): return .failure(failure)
        }
        defer { close(descriptor) }
        let bytes = serialize(request)
        guard target.secure else {
            return exchange(bytes, write: { Glibc.write(descriptor, $0, $1) }, read: { Glibc.read(descriptor, $0, $1) })
        }
        guard let tls, let ssl = SSL_new(tls) else { return .failure(Failure(reason: "cannot set up TLS")) }
        defer { SSL_free(ssl) }
        guard SSL_set_fd(ssl, descriptor) == 1 else { return .failure(Failure(reason: "cannot set up TLS")) }
        // RFC 6066 §3: SNI carries DNS names only, never an address literal.
        if !Self.isAddressLiteral(target.host) {
            _ = target.host.withCString {
                SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
            }
        }
        guard SSL_set1_host(ssl, target.host) == 1 else {
            return .failure(Failure(reason: "cannot check the host name \(target.host)"))
        }
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            let reason = verify != X509_V_OK ? String(cString: X509_verify_cert_error_string(verify)) : Self.libraryError()
            return .failure(Failure(reason: "TLS handshake with \(target.host) failed: \(reason)"))
        }
        defer { _ = SSL_shutdown(ssl) }
        return exchange(bytes, write: { SSL_write(ssl, $0, Int32($1)) }, read: { SSL_read(ssl, $0, Int32($1)) })
    }

    /// The request head and body in one buffer (a webhook body is small).
    func serialize(_ request: WebhookRequest) -> [UInt8] {
        var head =
            "POST \(target.target) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nUser-Agent: filedrop\r\n"
            + "Content-Type: \(request.contentType)\r\nContent-Length: \(request.body.count)\r\nConnection: close\r\n"
        for header in request.headers { head += "\(header.name.text): \(header.value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + request.body
    }

    /// Writes everything, then reads until the status line is complete (the rest is not needed).
    private func exchange<N: BinaryInteger>(
        _ bytes: [UInt8], write: (UnsafeRawPointer, Int) -> N,
        read: (UnsafeMutableRawPointer, Int) -> N
    ) -> Result<Int, Failure> {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Int(write($0.baseAddress! + offset, bytes.count - offset)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return .failure(Failure(reason: "the connection closed while sending")) }
            offset += written
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !answer.contains(UInt8(ascii: "\n")) && answer.count < 8192 {
            let count = buffer.withUnsafeMutableBytes { Int(read($0.baseAddress!, $0.count)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .failure(Failure(reason: answer.isEmpty ? "no answer" : "the answer was cut off")) }
            answer += buffer[..<count]
        }
        // RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ].
        let line = answer.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2)
        guard parts.count >= 2, parts[0].starts(with: Array("HTTP/1.".utf8)), parts[1].count == 3,
            let status = Int(String(decoding: parts[1], as: UTF8.self))
        else {
            return .failure(Failure(reason: "the answer is not HTTP"))
        }
        return .success(status)
    }

    /// A TCP connection to the first address of the host that answers within `timeout`,
    /// blocking afterwards with `timeout` on every read and write.
    private func connect() -> Result<Int32, Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(Failure(reason: "cannot resolve \(target.host): \(String(cString: gai_strerror(status)))"))
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
            let started =
                Glibc.connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 || errno == EINPROGRESS
            if let failure = started ? waitConnected(descriptor) : String(cString: strerror(errno)) {
                lastError = failure
                close(descriptor)
                continue
            }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            return .success(descriptor)
        }
        return .failure(Failure(reason: "cannot connect to \(target.hostHeader): \(lastError)"))
    }

    /// nil once the non-blocking connect completed; else why it did not.
    private func waitConnected(_ descriptor: Int32) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&poller, 1, Int32(timeout * 1000))
        guard ready > 0 else { return ready == 0 ? "timed out" : String(cString: strerror(errno)) }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
        return error == 0 ? nil : String(cString: strerror(error))
    }

    private static func isAddressLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    private static func libraryError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "the connection closed" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
