import FiledropHTTP

/// The upload page (`index.html`) in one language, rendered once per load from the web root's
/// template, so the page reads right before its script runs and without script at all (the
/// no-JS form is the same page). The template's `{{key}}` marks are catalogue keys, escaped as
/// text; `{{@lang}}` and `{{@dir}}` are the language's tag and direction, `{{@switch}}` the
/// language switch, and `{{@strings}}` the strings the page's script writes, as JSON in the
/// page itself: no second request, nothing to cache apart for offline use, and no other
/// language's words on the wire.
struct IndexPage: Sendable {
    static let templateName = "index.html"

    let body: [UInt8]
    let etag: String

    init(template: [UInt8], text: PageText) {
        var page: [UInt8] = []
        page.reserveCapacity(template.count + template.count / 4)
        let brace = UInt8(ascii: "{")
        var index = 0
        while index < template.count {
            if template[index] == brace, index + 1 < template.count, template[index + 1] == brace,
                let end = Self.closingMark(in: template, from: index + 2)
            {
                let key = String(decoding: template[(index + 2)..<end], as: UTF8.self)
                page += Self.value(of: key, text).utf8
                index = end + 2
            } else {
                page.append(template[index])
                index += 1
            }
        }
        body = page
        var hasher = ValidatorKey.Hasher(key: .process)
        hasher.add(String(decoding: page, as: UTF8.self))
        etag = "\"" + ValidatorKey.hex(hasher.finish()) + "\""
    }

    /// The `}}` that ends a mark opened before `start`, within one short line of key characters.
    private static func closingMark(in template: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < template.count, index - start <= 64 {
            let byte = template[index]
            if byte == UInt8(ascii: "}") { return template[index + 1] == UInt8(ascii: "}") ? index : nil }
            guard byte > 0x20, byte != UInt8(ascii: "{"), byte != UInt8(ascii: "<") else { return nil }
            index += 1
        }
        return nil
    }

    /// Markup the page's sentences hold, the same in every language (a flag is not translated).
    private static let markup = ["flag": "<code>--listen 8080</code>"]

    private static func value(of key: String, _ text: PageText) -> String {
        switch key {
        case "@lang": text.language.tag
        case "@dir": text.language.direction
        case "@strings": text.scriptStrings
        case "@switch": text.languageSwitch
        default: text.html(key, markup: markup)
        }
    }
}

extension IndexPage {
    /// As `StaticSite` serves the other files of the page (its CSP, `no-cache` with an ETag, a
    /// 304 when the browser has this language's copy), plus the Vary its language calls for.
    /// Compressed, like every generated body, by `FiledropApp`.
    func response(head: RequestHead, compression: ResponseCompression) -> Response {
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-cache")
        headers.add(.etag, etag)
        for field in PageText.varyFields { headers.addVary(field) }
        // The 304 names the same fields as the 200 it stands for (RFC 9110 §15.4.5), which
        // `compression.apply` gives Accept-Encoding.
        if compression.variesByEncoding(generated: ResponseFormat.html.contentType) { headers.addVary("Accept-Encoding") }
        // On the 304 too: a browser updates its stored copy's fields from it, policy included.
        headers.add(policy: .uploadPage)
        guard !FileResponse.isNotModified(head: head, etag: etag, modifiedSeconds: .max) else {
            return Response(status: .notModified, headers: headers)
        }
        headers.add(.contentType, ResponseFormat.html.contentType)
        return Response(status: .ok, headers: headers, body: .bytes(body))
    }
}
