/// The language switch's links (`?lang=de` on the upload page or a listing): the answer is a
/// `303 See Other` back to the same page without the query, with the `filedrop-lang` cookie
/// that `LanguageChoice` reads from then on, so the choice survives reloads and reaches the
/// server's own pages. Plain links and a cookie: the switch works without script too.
enum LanguageSwitch {
    /// A year; `SameSite=Lax` because nothing but navigation needs it, `HttpOnly` because the
    /// page learns its language from its own `lang` attribute.
    static func cookie(_ language: PageLanguage) -> String {
        "\(LanguageChoice.cookieName)=\(language.rawValue); Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly"
    }

    /// nil unless the query names one of our languages (anything else is the page as usual).
    static func answer(_ head: RequestHead) -> Response? {
        guard head.method == .get || head.method == .head, head.query != nil,
              let code = QueryParameters(head.query)["lang"], let language = PageLanguage(rawValue: code) else { return nil }
        return Response(status: .seeOther,
                        headers: [.location: String(head.path), .setCookie: cookie(language), .cacheControl: "no-store",
                                  .contentType: ResponseFormat.text.contentType],
                        body: .bytes(Array("See \(head.path)\n".utf8)))
    }
}
