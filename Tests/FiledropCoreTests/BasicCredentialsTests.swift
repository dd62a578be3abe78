import Testing

@testable import FiledropCore

/// RFC 7617 Basic credentials and the base64 under them.
@Suite struct BasicCredentialsTests {
    @Test func rfc7617Example() throws {
        // RFC 7617 §2: "Aladdin" / "open sesame".
        let credentials = try #require(BasicCredentials(authorization: "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="))
        #expect(credentials.user == Array("Aladdin".utf8))
        #expect(credentials.password == Array("open sesame".utf8))
    }

    @Test func schemeIsCaseInsensitiveAndPasswordKeepsColons() throws {
        // ":a:b" -> user "", password "a:b"
        let credentials = try #require(BasicCredentials(authorization: "basic OmE6Yg=="))
        #expect(credentials.user == [])
        #expect(credentials.password == Array("a:b".utf8))
    }

    @Test func utf8Password() throws {
        // "x:pässwörd" in UTF-8 (RFC 7617 §2.1 charset="UTF-8").
        let credentials = try #require(BasicCredentials(authorization: "Basic eDpww6Rzc3fDtnJk"))
        #expect(credentials.password == Array("pässwörd".utf8))
    }

    @Test(arguments: [
        "", "Basic", "Basic ", "Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "Basic QWxhZGRpbg==" /* no colon */,
        "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ" /* unpadded */,
        "Basic QWxh ZGRp", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ===", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZ!==",
        "Basic A", "Basic QR==", "Basic OgA=" /* ":\0" */, "Basic OgoK" /* ":\n\n" */,
    ])
    func malformed(value: String) {
        #expect(BasicCredentials(authorization: value) == nil)
    }

    @Test func challengeNamesRealmAndCharset() {
        #expect(BasicCredentials.challenge == #"Basic realm="filedrop", charset="UTF-8""#)
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equals(Array("abc".utf8), Array("abd".utf8)))
        #expect(!ConstantTime.equals(Array("abc".utf8), Array("abcd".utf8)))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }
}
