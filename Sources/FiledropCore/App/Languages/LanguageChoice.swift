import FiledropHTTP

/// Which language a browser's pages are in: the `filedrop-lang` cookie that the page's language
/// switch sets, else the best match of `Accept-Language`, else English. One place decides, so
/// the page, the listing, the upload result and the error pages always agree; every answer
/// that depends on it says `Vary: Accept-Language, Cookie` (`PageText.vary`).
public enum LanguageChoice {
    public static let cookieName = "filedrop-lang"

    public static func language(for head: RequestHead) -> PageLanguage {
        if let chosen = fromCookies(head.headers.values(for: .cookie)) { return chosen }
        return fromAcceptLanguage(head.headers.values(for: .acceptLanguage).joined(separator: ","))
    }

    /// RFC 6265 §5.4: `name=value` pairs separated by `; `; an unknown value counts as no cookie.
    static func fromCookies(_ fields: [String]) -> PageLanguage? {
        for field in fields {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0].trimmingSpaces == cookieName[...] else { continue }
                if let language = PageLanguage(rawValue: String(parts[1].trimmingSpaces)) { return language }
            }
        }
        return nil
    }

    /// RFC 9110 §12.5.4 and RFC 4647 §3.4 (lookup): the ranges by falling weight, ties in the
    /// order sent, a weight of 0 meaning "not this one"; the first range one of ours answers
    /// wins. `*` and anything we do not have fall through to English.
    static func fromAcceptLanguage(_ field: String) -> PageLanguage {
        var ranges: [(range: Substring, weight: Int, position: Int)] = []
        for (position, element) in field.split(separator: ",").enumerated() {
            let parts = element.split(separator: ";")
            guard let first = parts.first else { continue }
            let range = first.trimmingSpaces
            guard !range.isEmpty else { continue }
            var weight = 1000
            for parameter in parts.dropFirst() {
                let parameter = parameter.trimmingSpaces
                if parameter.hasPrefix("q=") || parameter.hasPrefix("Q=") {
                    weight = thousandths(parameter.dropFirst(2)) ?? 0
                }
            }
            if weight > 0 { ranges.append((range, weight, position)) }
        }
        ranges.sort { $0.weight != $1.weight ? $0.weight > $1.weight : $0.position < $1.position }
        return ranges.lazy.compactMap { PageLanguage(range: $0.range) }.first ?? .english
    }

    /// RFC 9110 §12.4.2: `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in
    /// thousandths; nil for anything else.
    static func thousandths(_ text: Substring) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        var value = whole == "1" ? 1000 : 0
        if parts.count == 2 {
            let digits = parts[1]
            guard digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let padded = digits + String(repeating: "0", count: 3 - digits.count)
            value += Int(padded) ?? 0
            guard value <= 1000 else { return nil }
        }
        return value
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
