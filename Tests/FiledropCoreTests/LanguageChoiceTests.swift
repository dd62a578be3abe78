import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// `Accept-Language` (RFC 9110 §12.5.4) by RFC 4647 lookup, the `filedrop-lang` cookie over it,
/// and English for everything else.
@Suite struct LanguageChoiceTests {
    static func head(_ fields: [(String, String)]) -> RequestHead {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return RequestHead(method: .get, target: "/", version: .http1_1, headers: headers)
    }

    @Test(arguments: [
        ("zh-CN", PageLanguage.chinese), ("zh-Hans", .chinese), ("zh", .chinese), ("ZH-hans-cn", .chinese),
        ("de-AT", .german), ("de", .german), ("es-419", .spanish), ("fr-CA", .french), ("en-GB", .english),
        ("fr;q=0.4, de;q=0.8", .german), ("it, es;q=0.1", .spanish), ("de;q=0, fr", .french),
        ("en;q=0.5, zh-CN;q=0.9", .chinese), ("*", .english), ("ja, ko", .english), ("", .english),
        ("zh-TW, fr;q=0.5", .french), ("zh-Hant", .english), ("de;q=1.0001, fr;q=0.5", .french),
        ("de;q=2, es", .spanish), ("  de-CH ; q=0.9 ,  , es;q=0.8", .german), ("es, de", .spanish),
        ("deutsch, fr", .french),
    ])
    func acceptLanguage(field: String, expected: PageLanguage) {
        #expect(LanguageChoice.language(for: Self.head([("Accept-Language", field)])) == expected)
    }

    @Test func noHeaderIsEnglish() {
        #expect(LanguageChoice.language(for: Self.head([])) == .english)
    }

    @Test func cookieWinsOverAcceptLanguage() {
        let head = Self.head([("Accept-Language", "de"), ("Cookie", "theme=dark; filedrop-lang=zh; other=1")])
        #expect(LanguageChoice.language(for: head) == .chinese)
    }

    @Test(arguments: ["filedrop-lang=xx", "filedrop-lang=", "filedrop-language=fr", "xfiledrop-lang=fr"])
    func unknownCookieFallsToAcceptLanguage(cookie: String) {
        let head = Self.head([("Accept-Language", "es"), ("Cookie", cookie)])
        #expect(LanguageChoice.language(for: head) == .spanish)
    }

    @Test(arguments: [("0", 0), ("0.5", 500), ("0.123", 123), ("1", 1000), ("1.000", 1000), ("0.", 0)])
    func weights(text: String, thousandths: Int) {
        #expect(LanguageChoice.thousandths(Substring(text)) == thousandths)
    }

    @Test(arguments: ["1.001", "0.1234", "2", "-1", "0.5x", "", ".5"])
    func invalidWeights(text: String) {
        #expect(LanguageChoice.thousandths(Substring(text)) == nil)
    }

    @Test(arguments: [
        (UInt64(0), PageLanguage.french, "one"), (1, .french, "one"), (2, .french, "other"),
        (0, .english, "other"), (1, .german, "one"), (1, .chinese, "other"), (1, .spanish, "one"),
    ])
    func pluralCategories(count: UInt64, language: PageLanguage, category: String) {
        #expect(language.pluralCategory(count) == category)
    }

    @Test func switchLinkSetsTheCookieAndGoesBack() throws {
        let head = RequestHead(method: .get, target: "/files/a%20b/?lang=de", version: .http1_1, headers: ["Host": "x"])
        let response = try #require(
            LanguageSwitch.answer(head, back: LocationPath(components: ["files", "a b"], isFolder: true)))
        #expect(response.status == .seeOther)
        #expect(response.headers[.location] == "/files/a%20b/")
        #expect(response.headers[.setCookie] == "filedrop-lang=de; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly")
        let unknown = RequestHead(method: .get, target: "/?lang=xx", version: .http1_1, headers: ["Host": "x"])
        #expect(LanguageSwitch.answer(unknown, back: .root) == nil)
    }
}
