import FiledropHTTP

/// The language switch's links (`?lang=de` on the upload page or a listing): the answer is a
/// `303 See Other` back to the same page without the query, with the `filedrop-lang` cookie
/// that `LanguageChoice` reads from then on, so the choice survives reloads and reaches the
/// server's own pages. Plain links and a cookie: the switch works without script too.
/// The way back is the page's path as the server parsed it (`LocationPath`), never the raw
/// target: `//evil.example/?lang=de` must not send the browser to another host.
enum LanguageSwitch {
    /// A year; `SameSite=Lax` because nothing but navigation needs it, `HttpOnly` because the
    /// page learns its language from its own `lang` attribute.
    static func cookie(_ language: PageLanguage) -> String {
        "\(LanguageChoice.cookieName)=\(language.rawValue); Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly"
    }

    /// nil unless the query names one of our languages (anything else is the page as usual);
    /// `back` is the page itself, made only for a switch.
    static func answer(_ head: RequestHead, back: @autoclosure () -> LocationPath) -> Response? {
        guard head.method == .get || head.method == .head, head.query != nil,
            let code = QueryParameters(head.query)["lang"], let language = PageLanguage(rawValue: code)
        else { return nil }
        let location = back()
        return Response(
            status: .seeOther,
            headers: [
                .location: location.description, .setCookie: cookie(language), .cacheControl: "no-store",
                .contentType: ResponseFormat.text.contentType,
            ],
            body: .bytes(Array("See \(location)\n".utf8)))
    }
}
