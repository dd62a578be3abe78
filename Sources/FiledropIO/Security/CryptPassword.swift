import CCrypt
import FiledropCore
import Glibc

/// The password behind `password-hash`, hashed and checked with crypt(3) from libxcrypt
/// (Debian's libcrypt1, the library that checks /etc/shadow): new hashes are yescrypt
/// (`$y$...`), its default and preferred method; bcrypt (`$2b$`) and SHA-crypt (`$6$`) hashes
/// made elsewhere are accepted too, legacy ones (DES, MD5) are not. No cryptography is
/// written here: only the calls and a constant-time comparison of the results.
public struct CryptPassword: PasswordVerifier {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Not a hash crypt(3) can check, or a legacy method.
        case unsupportedHash
        /// crypt_gensalt failed (no entropy?) or crypt_r returned its failure token.
        case hashingFailed
        /// Empty passwords protect nothing.
        case emptyPassword
        /// NUL ends a C string; a password with one cannot be hashed faithfully.
        case passwordContainsNUL

        public var description: String {
            switch self {
            case .unsupportedHash:
                "not a password hash this system can check (expected one printed by `filedrop passwd`, starting with $y$)"
            case .hashingFailed: "the system's crypt(3) could not hash the password"
            case .emptyPassword: "the password is empty"
            case .passwordContainsNUL: "the password contains a NUL character"
            }
        }
    }

    /// The stored hash, e.g. `$y$j9T$salt$hash`.
    public let hash: String

    /// Accepts `hash` only if crypt(3) can check it with a modern method.
    public init(hash: String) throws(Failure) {
        guard crypt_checksalt(hash) == CRYPT_SALT_OK, hash.hasPrefix("$"),
            let check = Self.crypt([], setting: hash), !check.hasPrefix("*")
        else {
            throw .unsupportedHash
        }
        self.hash = hash
    }

    /// A new hash of `password` with a fresh random salt, for `password-hash`.
    public static func hash(password: [UInt8]) throws(Failure) -> String {
        guard !password.isEmpty else { throw .emptyPassword }
        guard !password.contains(0) else { throw .passwordContainsNUL }
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        // NULL prefix: the preferred method (yescrypt); NULL random bytes: libxcrypt reads
        // them from the kernel (CRYPT_GENSALT_IMPLEMENTS_AUTO_ENTROPY); count 0: its default cost.
        guard crypt_gensalt_rn(nil, 0, nil, 0, &setting, Int32(setting.count)) != nil else { throw .hashingFailed }
        let settingText = String(decoding: setting.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let hashed = crypt(password, setting: settingText), !hashed.hasPrefix("*") else { throw .hashingFailed }
        return hashed
    }

    public func verify(_ password: [UInt8]) -> Bool {
        guard !password.isEmpty, !password.contains(0), let computed = Self.crypt(password, setting: hash) else { return false }
        return ConstantTime.equals(computed.utf8, hash.utf8)
    }

    /// crypt_r with a zeroed, heap-allocated `crypt_data` (about 32 KiB) that is wiped after use.
    private static func crypt(_ password: [UInt8], setting: String) -> String? {
        let size = MemoryLayout<crypt_data>.size
        guard let raw = calloc(1, size) else { return nil }
        defer {
            explicit_bzero(raw, size)
            free(raw)
        }
        let data = raw.bindMemory(to: crypt_data.self, capacity: 1)
        var phrase = password.map { CChar(bitPattern: $0) }
        phrase.append(0)
        defer { phrase.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        guard let result = crypt_r(phrase, setting, data) else { return nil }
        return String(cString: result)
    }
}
