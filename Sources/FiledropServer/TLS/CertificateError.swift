import Glibc

/// Why `tls = auto` could not load, make or use its certificate authority. Each description
/// is one sentence naming the file and what to do: the daemon prints it and exits with 2.
public enum CertificateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The directory could not be made or listed; `errno` from the failing call.
    case directoryUnusable(path: String, errno: Int32)
    /// A file exists but could not be opened or read.
    case fileUnreadable(path: String, errno: Int32)
    /// A file could not be written in full (a temporary file is removed on the way out).
    case fileUnwritable(path: String, errno: Int32)
    /// One of the pair is there and the other is not: making a new CA would orphan the
    /// devices that trust the old one, so a person decides.
    case companionMissing(missing: String, present: String)
    /// The private key file can be read or written by users other than its owner.
    case keyOpenToOthers(path: String, mode: UInt32)
    /// The key file does not hold a PEM private key (garbage, truncated, encrypted).
    case keyUnparsable(path: String)
    /// The certificate file does not hold a PEM X.509 certificate.
    case certificateUnparsable(path: String)
    /// The key is not the one the certificate was made for.
    case keyMismatch(key: String, certificate: String)
    /// The certificate cannot sign others (no basicConstraints CA:TRUE with keyCertSign).
    case notCertificateAuthority(path: String)
    /// The certificate's notAfter (Unix seconds) has passed.
    case expired(path: String, notAfter: Int64)
    /// A name to certify is neither a DNS name nor an IPv4/IPv6 literal.
    case invalidName(String)
    /// libcrypto refused an operation that should not fail (out of memory, a broken
    /// installation); `reason` is OpenSSL's own error text.
    case libcryptoFailed(operation: String, reason: String)

    public var description: String {
        switch self {
        case .directoryUnusable(let path, let errno):
            "the TLS directory \(path) cannot be used (\(Self.text(errno))); create it, or set tls-dir to a writable place"
        case .fileUnreadable(let path, let errno):
            "the file \(path) cannot be read (\(Self.text(errno))); check its owner and mode"
        case .fileUnwritable(let path, let errno):
            "the file \(path) cannot be written (\(Self.text(errno))); check the directory's owner, mode and free space"
        case .companionMissing(let missing, let present):
            "\(missing) is missing while \(present) exists; restore it, or remove \(present) to make a new CA (every device must then trust the new one)"
        case .keyOpenToOthers(let path, let mode):
            "the CA key \(path) is \(mode & 0o044 != 0 ? "readable" : "writable") by other users (mode \(Self.octal(mode))); chmod 600 it"
        case .keyUnparsable(let path):
            "the CA key \(path) is not an unencrypted PEM private key (truncated or damaged?)"
        case .certificateUnparsable(let path):
            "the CA certificate \(path) is not a PEM X.509 certificate (truncated or damaged?)"
        case .keyMismatch(let key, let certificate):
            "the CA key \(key) does not belong to the certificate \(certificate); restore the pair, or remove both to make a new CA"
        case .notCertificateAuthority(let path):
            "the certificate \(path) is not a CA certificate (it needs basicConstraints CA:TRUE and keyCertSign); remove it and its key to make a new CA"
        case .expired(let path, let notAfter):
            "the CA certificate \(path) expired at \(Self.date(notAfter)); remove it and its key to make a new CA"
        case .invalidName(let name):
            "\"\(name.logEscaped)\" is neither a DNS name nor an IP address, so no certificate can name it"
        case .libcryptoFailed(let operation, let reason):
            "libcrypto could not \(operation): \(reason)"
        }
    }

    private static func text(_ errno: Int32) -> String {
        String(cString: strerror(errno))
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `2035-01-31 12:00:00 UTC`.
    private static func date(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "\(seconds)" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
