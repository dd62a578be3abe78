import CCrypto

/// OpenSSL's per-thread error queue. Whatever a failed call leaves there must go: libssl's
/// `SSL_get_error` reads the same queue, and a stale entry on a loop thread would make a
/// later, healthy TLS connection look failed.
public enum LibcryptoErrorQueue {
    /// The oldest queued error as OpenSSL words it ("unknown error" when none), emptying the queue.
    public static func takeReason() -> String {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `.libcryptoFailed` for `operation`, with the queued reason.
    public static func failure(_ operation: String) -> CertificateError {
        .libcryptoFailed(operation: operation, reason: takeReason())
    }

    /// Drops whatever is queued (a parse that was expected to fail, a mismatch check).
    public static func clear() {
        ERR_clear_error()
    }
}
