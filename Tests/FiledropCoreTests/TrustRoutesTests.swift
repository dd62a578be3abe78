import Foundation
import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// `/ca.crt`, `/ca.mobileconfig` and `/trust`: what each serves with filedrop's own CA, with
/// the operator's certificate, and with HTTPS off.
@Suite struct TrustRoutesTests {
    typealias Fixture = HTTPSFixture

    @Test(arguments: [false, true])
    func theCertificateIsTheDERWithItsHeaders(secure: Bool) {
        let response = Fixture().answer(Fixture.head(.get, "/ca.crt"), secure: secure)
        #expect(response?.status == .ok)
        guard case .bytes(let bytes)? = response?.body else {
            Issue.record("no body")
            return
        }
        #expect(bytes == Fixture.anchor.certificateDER)
        #expect(response?.headers["Content-Type"] == "application/x-x509-ca-cert")
        #expect(response?.headers["Content-Disposition"] == "attachment; filename=\"filedrop-ca.crt\"")
        #expect(response?.headers["Cache-Control"] == "no-cache")
        #expect(response?.headers["ETag"] == "\"ca-3FA107C29B5DE4186AF0238CD941B75E\"")
    }

    @Test func theCertificateRevalidatesWithItsETag() {
        let fixture = Fixture()
        let etag = "\"ca-3FA107C29B5DE4186AF0238CD941B75E\""
        let again = fixture.answer(Fixture.head(.get, "/ca.crt", ["If-None-Match": etag]))
        #expect(again?.status == .notModified)
        #expect(again?.headers["ETag"] == etag)
        let other = fixture.answer(Fixture.head(.get, "/ca.crt", ["If-None-Match": "\"ca-0\""]))
        #expect(other?.status == .ok)
        let dated = fixture.answer(Fixture.head(.get, "/ca.crt", ["If-Modified-Since": "Sun, 06 Nov 2094 08:49:37 GMT"]))
        #expect(dated?.status == .ok)
    }

    @Test func headAndOtherMethods() {
        let fixture = Fixture()
        #expect(fixture.answer(Fixture.head(.head, "/ca.crt"))?.status == .ok)
        #expect(fixture.answer(Fixture.head(.head, "/trust"), secure: true)?.status == .ok)
        #expect(fixture.answer(Fixture.head(.post, "/ca.crt"), secure: true)?.status == .methodNotAllowed)
    }

    @Test(arguments: ["/ca.crt", "/ca.mobileconfig"])
    func withTheOperatorsCertificateThereIsNothingToDownload(target: String) {
        let response = Fixture(authority: nil).answer(Fixture.head(.get, target), secure: true)
        #expect(response?.status == .notFound)
        #expect(Fixture.text(response).contains("comes from its operator"))
    }

    @Test(arguments: ["/ca.crt", "/ca.mobileconfig", "/trust"])
    func withHTTPSOffTheRoutesSayWhy(target: String) {
        let (app, _) = FiledropAppUploadTests.makeApp()
        let response = FiledropAppUploadTests.send(app, FiledropAppUploadTests.head(.get, target))
        #expect(response.status == .notFound)
        #expect(FiledropAppUploadTests.bodyText(response).contains("HTTPS is off on this server"))
    }

    // MARK: - /ca.mobileconfig

    @Test func theProfileIsAPlistWithTheCertificate() throws {
        let response = Fixture().answer(Fixture.head(.get, "/ca.mobileconfig", host: "[fe80::1]:8080"))
        #expect(response?.status == .ok)
        #expect(response?.headers["Content-Type"] == "application/x-apple-aspen-config")
        #expect(response?.headers["Content-Disposition"] == "attachment; filename=\"filedrop-ca.mobileconfig\"")
        let plist = try #require(try Self.parse(response))
        #expect(plist["PayloadType"] as? String == "Configuration")
        #expect(plist["PayloadVersion"] as? Int == 1)
        #expect(plist["PayloadDisplayName"] as? String == "filedrop CA on [fe80::1]")
        #expect(plist["PayloadIdentifier"] as? String == "local.filedrop.ca.3FA107C29B5DE418")
        #expect(plist["PayloadRemovalDisallowed"] as? Bool == false)
        let payloads = try #require(plist["PayloadContent"] as? [[String: Any]])
        #expect(payloads.count == 1)
        let root = try #require(payloads.first)
        #expect(root["PayloadType"] as? String == "com.apple.security.root")
        #expect(root["PayloadVersion"] as? Int == 1)
        #expect(root["PayloadCertificateFileName"] as? String == "filedrop-ca.crt")
        #expect(root["PayloadDisplayName"] as? String == "filedrop CA on laptop")
        #expect(root["PayloadIdentifier"] as? String == "local.filedrop.ca.3FA107C29B5DE418.certificate")
        #expect((root["PayloadContent"] as? Data).map { [UInt8]($0) } == Fixture.anchor.certificateDER)
        let text = Fixture.text(response)
        #expect(text.contains("<data>\(Base64.encode(Fixture.anchor.certificateDER))</data>"))
    }

    @Test func theUUIDsAreStableWellFormedAndDistinct() throws {
        let first = try #require(try Self.parse(Fixture().answer(Fixture.head(.get, "/ca.mobileconfig"))))
        let second = try #require(try Self.parse(Fixture().answer(Fixture.head(.get, "/ca.mobileconfig", host: "10.1.1.1"))))
        let profile = try #require(first["PayloadUUID"] as? String)
        let payload = try #require((first["PayloadContent"] as? [[String: Any]])?.first?["PayloadUUID"] as? String)
        #expect(profile == "3FA107C2-9B5D-8418-AAF0-238CD941B75E")
        #expect(payload == "02CC9A6F-13E8-8470-9D2A-F9C6813E47DB")
        #expect(UUID(uuidString: profile) != nil && UUID(uuidString: payload) != nil)
        #expect(second["PayloadUUID"] as? String == profile)
        let other = TrustAnchor(
            certificateDER: [1], fingerprintSHA256: String(repeating: "AA:", count: 31) + "AB", commonName: "x")
        let uuids = MobileConfigProfile(anchor: other, serverName: "x").uuids
        #expect(uuids.profile != profile && uuids.profile != uuids.payload)
    }

    @Test func theProfileEscapesWhatItWasGiven() throws {
        let anchor = TrustAnchor(
            certificateDER: [0x30, 0x00], fingerprintSHA256: HTTPSFixture.anchor.fingerprintSHA256,
            commonName: "A&B <CA> \"x\"\u{1}")
        let profile = MobileConfigProfile(anchor: anchor, serverName: "h<o>st")
        let plist = try #require(try Self.parse(profile.response()))
        #expect(plist["PayloadDisplayName"] as? String == "filedrop CA on h<o>st")
        let root = try #require((plist["PayloadContent"] as? [[String: Any]])?.first)
        #expect(root["PayloadDisplayName"] as? String == "A&B <CA> \"x\"")
        #expect(!profile.xml.contains("<CA>"))
    }

    static func parse(_ response: Response?) throws -> [String: Any]? {
        guard case .bytes(let bytes)? = response?.body else { return nil }
        return try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any]
    }

    // MARK: - /trust

    @Test(arguments: [false, true])
    func thePageExplainsEveryDeviceAndShowsTheFingerprint(secure: Bool) {
        let response = Fixture().answer(Fixture.head(.get, "/trust"), secure: secure)
        #expect(response?.status == .ok)
        #expect(response?.headers["Content-Type"] == "text/html; charset=utf-8")
        // On the plain port it is a browser's first visit: a script may ask the HTTPS origin,
        // and nothing else, whether the device trusts the CA yet.
        let policy = secure ? SecurityPolicy.trustPage : SecurityPolicy.firstVisit(probing: "https://192.168.1.5:8443")
        #expect(response?.headers["Content-Security-Policy"] == policy.contentSecurityPolicy)
        let html = Fixture.text(response)
        for heading in ["Android", "iPhone and iPad", "Windows", "Mac", "Linux", "Firefox"] {
            #expect(html.contains(">\(heading)</h2>"), "no section for \(heading)")
        }
        #expect(html.contains(HTTPSFixture.anchor.fingerprintSHA256))
        #expect(html.contains("href=\"/ca.crt\""))
        #expect(html.contains("href=\"/ca.mobileconfig\""))
        #expect(html.contains("Certificate Trust Settings"))
        #expect(html.contains("update-ca-certificates"))
        #expect(html.contains("systemctl status filedrop"))
        #expect(html.contains("<link rel=\"stylesheet\" href=\"/style.css\">"))
        #expect(html.contains("href=\"https://192.168.1.5:8443/\""))
        #expect(html.contains("<script src=\"/first-visit.js\"") == !secure)
    }

    @Test func thePageEscapesTheTitleAndTheCAName() {
        let anchor = TrustAnchor(certificateDER: [1], fingerprintSHA256: "AB:CD", commonName: "<img src=x onerror=alert(1)>")
        let fixture = Fixture(authority: anchor) { $0.title = "<script>alert(1)</script>" }
        let html = Fixture.text(fixture.answer(Fixture.head(.get, "/trust")))
        #expect(!html.contains("<script>"))
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
    }

    /// Every sentence from the catalogue, none of English's left, whether the language came
    /// from Accept-Language or the cookie; the page says what chose its words.
    @Test(arguments: [
        (HTTPFieldName.acceptLanguage, "de-DE,de;q=0.9,en;q=0.5", PageLanguage.german),
        (HTTPFieldName.cookie, "filedrop-lang=zh", PageLanguage.chinese),
    ])
    func thePageIsInTheReadersLanguage(field: HTTPFieldName, value: String, language: PageLanguage) throws {
        let response = Fixture().answer(Fixture.head(.get, "/trust", [field: value]))
        let html = Fixture.text(response)
        #expect(html.contains("<html lang=\"\(language.tag)\""))
        #expect(response?.headers["Vary"]?.contains("Accept-Language") == true)
        let english = try CatalogueFilesTests.catalogue(.english)
        let own = try CatalogueFilesTests.catalogue(language)
        #expect(html.contains(own["trust.fingerprintHeading"]!.htmlEscaped))
        #expect(html.contains("<em>"))
        // Every placeholder filled, every emphasis mark turned into markup.
        #expect(!html.contains("{") && !html.contains("*"))
        for key in english.keys where key.hasPrefix("trust.") && key != "trust.nothingHeading" && !key.hasPrefix("trust.nothing")
        {
            let fixed = english[key]!.split(separator: "{").first.map(String.init) ?? ""
            // The opening words of each English sentence (before any placeholder or emphasis).
            let opening = String(fixed.prefix { $0 != "*" }.prefix(24))
            if opening.count >= 8 { #expect(!html.contains(opening.htmlEscaped), "English \(key) left") }
        }
        #expect(html.contains(HTTPSFixture.anchor.fingerprintSHA256))
        #expect(html.contains("update-ca-certificates"))
    }

    @Test(arguments: PageLanguage.allCases)
    func everyLanguageFillsEveryMark(language: PageLanguage) {
        for authority in [HTTPSFixture.anchor, nil] {
            let html = Fixture.text(
                Fixture(authority: authority).answer(
                    Fixture.head(.get, "/trust", [.cookie: "filedrop-lang=\(language.rawValue)"])))
            #expect(html.contains("<html lang=\"\(language.tag)\""))
            #expect(!html.contains("{") && !html.contains("*") && !html.contains(">trust."), "\(language)")
        }
    }

    @Test func withTheOperatorsCertificateThePageSaysNothingNeedsInstalling() {
        let html = Fixture.text(Fixture(authority: nil).answer(Fixture.head(.get, "/trust"), secure: true))
        #expect(html.contains("Nothing to install"))
        #expect(!html.contains("/ca.crt"))
        #expect(!html.contains("Android"))
    }
}
