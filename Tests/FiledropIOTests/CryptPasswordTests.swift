import FiledropIO
import Testing

/// crypt(3) through libxcrypt: yescrypt hashes, checks, refusals.
@Suite struct CryptPasswordTests {
    @Test func hashThenVerify() throws {
        let hash = try CryptPassword.hash(password: Array("correct horse".utf8))
        #expect(hash.hasPrefix("$y$"))
        let verifier = try CryptPassword(hash: hash)
        #expect(verifier.verify(Array("correct horse".utf8)))
        #expect(!verifier.verify(Array("correct horsE".utf8)))
        #expect(!verifier.verify(Array("correct hors".utf8)))
        #expect(!verifier.verify([]))
    }

    @Test func saltsDiffer() throws {
        #expect(try CryptPassword.hash(password: [0x61]) != CryptPassword.hash(password: [0x61]))
    }

    /// A SHA-512 crypt hash made elsewhere (`openssl passwd -6 -salt saltsalt secret`) is accepted.
    @Test func sha512CryptFromElsewhere() throws {
        let verifier = try CryptPassword(
            hash: "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1")
        #expect(verifier.verify(Array("secret".utf8)))
        #expect(!verifier.verify(Array("Secret".utf8)))
    }

    @Test(arguments: ["", "secret", "$1$saltsalt$abc", "abJnggxhB/yWI", "$y$", "$unknown$x$y", "*"])
    func unusableHashesAreRefused(hash: String) {
        #expect(throws: CryptPassword.Failure.unsupportedHash) { try CryptPassword(hash: hash) }
    }

    @Test func emptyAndNULPasswordsAreRefused() {
        #expect(throws: CryptPassword.Failure.emptyPassword) { try CryptPassword.hash(password: []) }
        #expect(throws: CryptPassword.Failure.passwordContainsNUL) { try CryptPassword.hash(password: [0x61, 0, 0x62]) }
    }
}
