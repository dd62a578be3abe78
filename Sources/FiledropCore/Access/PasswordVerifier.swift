/// Checks a password against the configured hash. The core only asks the question; the
/// answer needs crypt(3), which lives outside it (`CryptPassword` in FiledropIO), so the
/// core stays free of C modules and tests can plug in a fake.
public protocol PasswordVerifier: Sendable {
    /// Whether `password` (UTF-8 bytes) is the configured one. Slow by design.
    func verify(_ password: [UInt8]) -> Bool
}
