import CSSL
import Glibc

/// One connection's TLS state: an OpenSSL `SSL` reading and writing the non-blocking socket
/// itself, driven by the connection's loop. Every call returns at once; "would block" says
/// which direction OpenSSL waits for (a read can need a write, during the handshake or a TLS
/// 1.3 key update), and the connection asks epoll for that.
final class TLSSession {
    private let ssl: OpaquePointer
    /// The context this session was made from, kept alive while it lives (a reload swaps in
    /// a new one for new connections only).
    let context: TLSContext
    /// Set by a read that could not go on until the socket takes bytes: epoll must report
    /// writability to the reader too.
    private(set) var readWantsWrite = false

    enum HandshakeStep: Equatable {
        case done
        case wantRead
        case wantWrite
        case failed(String)
    }

    /// What the first bytes on the HTTPS port say, looked at without taking them.
    enum Opening: Equatable {
        /// Nothing has arrived yet.
        case nothingYet
        /// The first TLS record has begun; it is whole once `bytes` are queued.
        case partialRecord(bytes: Int)
        /// The first record is whole, or the bytes are not TLS as we know it (OpenSSL says why).
        case ready
        /// The client spoke plain HTTP: a method's capital letter, where TLS opens with a
        /// handshake record (22). Nothing of it was taken.
        case plainHTTP
        /// The client closed the connection, or it failed.
        case ended
    }

    /// Looks at the first record on `descriptor` through `scratch` (at least a record's size).
    /// A session is made only once the record is whole: a client that sends a few bytes of a
    /// ClientHello and stops costs no OpenSSL state (its buffers are about 100 KiB), only the
    /// kernel's socket buffer.
    static func opening(of descriptor: Int32, scratch: UnsafeMutableRawBufferPointer) -> Opening {
        // RFC 8446 §5.1: a record is a 5-byte header (type, version, length) and its fragment,
        // at most 2^14 bytes plus expansion; a ClientHello fits in one.
        let wanted = min(scratch.count, 5 + (1 << 14) + 2048)
        let count = recv(descriptor, scratch.baseAddress, wanted, Int32(MSG_PEEK))
        if count < 0 { return errno == EAGAIN || errno == EINTR ? .nothingYet : .ended }
        if count == 0 { return .ended }
        let bytes = UnsafeRawBufferPointer(rebasing: scratch[..<count])
        if bytes[0] >= UInt8(ascii: "A") && bytes[0] <= UInt8(ascii: "Z") { return .plainHTTP }
        guard bytes[0] == 22 else { return .ready }
        guard count >= 5 else { return .partialRecord(bytes: 5) }
        let record = 5 + (Int(bytes[3]) << 8 | Int(bytes[4]))
        return count >= record || record > wanted ? .ready : .partialRecord(bytes: record)
    }

    init?(context: TLSContext, descriptor: Int32) {
        guard let ssl = SSL_new(context.context) else { return nil }
        guard SSL_set_fd(ssl, descriptor) == 1 else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.context = context
    }

    deinit {
        SSL_free(ssl)
    }

    /// Moves the handshake on as far as the socket allows.
    func handshake() -> HandshakeStep {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_SYSCALL where errno != 0: return .failed(String(cString: strerror(errno)))
        default: return .failed(LibcryptoErrorQueue.takeReason())
        }
    }

    /// Decrypted bytes into `space`, as many records as have arrived and fit (one SSL_read
    /// gives one record, 16 KiB: reading on fills the space as one plain read would, so the
    /// body goes to its file in large writes and the loop sees epoll once per batch).
    /// `.done(0)` at the end of the stream (close_notify, or an EOF without one: the HTTP
    /// framing tells whether anything was cut). What ends a batch early (the end, an error)
    /// is reported by the next call.
    func read(into space: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        var total = 0
        while total < space.count {
            let result: IOResult<Int>
            do {
                result = try readRecord(into: UnsafeMutableRawBufferPointer(rebasing: space[total...]))
            } catch {
                // A failed session fails again on the next call, after these bytes are used.
                if total > 0 { break }
                throw error
            }
            guard case .done(let count) = result, count > 0 else { return total > 0 ? .done(total) : result }
            total += count
        }
        return .done(total)
    }

    private func readRecord(into space: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        ERR_clear_error()
        var count = 0
        if SSL_read_ex(ssl, space.baseAddress, space.count, &count) == 1 {
            readWantsWrite = false
            return .done(count)
        }
        switch SSL_get_error(ssl, 0) {
        case SSL_ERROR_WANT_READ:
            readWantsWrite = false
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            readWantsWrite = true
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .done(0)
        default:
            throw failure("SSL_read")
        }
    }

    /// Encrypts and sends from `bytes`; returns how many were taken. After `.wouldBlock` the
    /// same bytes (from any address) must be offered again (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER).
    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        ERR_clear_error()
        var count = 0
        if SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count) == 1 { return .done(count) }
        switch SSL_get_error(ssl, 0) {
        case SSL_ERROR_WANT_WRITE:
            return .wouldBlock
        default:
            // Renegotiation is off, so a write never waits for a read: anything else is fatal.
            throw failure("SSL_write")
        }
    }

    /// Sends `length` bytes of a file: with kernel TLS the kernel encrypts and sendfile stays
    /// zero-copy; otherwise they are read into `scratch` and encrypted here. Offering the same
    /// offset again after `.wouldBlock` re-reads the same bytes, as OpenSSL wants.
    func sendFile(_ file: Int32, offset: UInt64, length: Int, scratch: UnsafeMutableRawBufferPointer) throws(SystemError)
        -> IOResult<Int>
    {
        if filedrop_ssl_ktls_send(ssl) == 1 {
            ERR_clear_error()
            let sent = SSL_sendfile(ssl, file, off_t(offset), length, 0)
            if sent > 0 { return .done(sent) }
            guard SSL_get_error(ssl, Int32(truncatingIfNeeded: sent)) == SSL_ERROR_WANT_WRITE else {
                throw failure("SSL_sendfile")
            }
            return .wouldBlock
        }
        let wanted = min(length, scratch.count)
        let read = pread(file, scratch.baseAddress, wanted, off_t(offset))
        if read < 0 { throw SystemError(call: "pread", errno: errno) }
        if read == 0 { throw SystemError(call: "pread (file truncated)", errno: EIO) }
        // A partial write takes one record (16 KiB) per call: offer the rest of what was
        // read, not read it again.
        var sent = 0
        while sent < read {
            guard case .done(let count) = try write(UnsafeRawBufferPointer(rebasing: scratch[sent..<read])) else {
                return sent > 0 ? .done(sent) : .wouldBlock
            }
            sent += count
        }
        return .done(sent)
    }

    /// Decrypted or undecrypted bytes OpenSSL holds that the socket will not announce again.
    var hasPendingInput: Bool { SSL_has_pending(ssl) == 1 }

    /// Whether the kernel encrypts this connection's sends (kTLS).
    var kernelSends: Bool { filedrop_ssl_ktls_send(ssl) == 1 }

    /// Sends close_notify if the socket takes it now; a clean end the client can tell from a cut.
    func sendCloseNotify() {
        ERR_clear_error()
        if SSL_is_init_finished(ssl) == 1 { _ = SSL_shutdown(ssl) }
        ERR_clear_error()
    }

    private func failure(_ call: String) -> SystemError {
        let saved = errno
        let detail = LibcryptoErrorQueue.takeReason()
        return SystemError(call: "\(call): \(detail)", errno: saved != 0 ? saved : EPROTO)
    }
}
