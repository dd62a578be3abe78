/// The languages the page and the server's own HTML pages are written in. Each has one
/// catalogue in the web root, `i18n-<code>.json`, with exactly English's keys
/// (`Tests/FiledropCoreTests/CatalogueFilesTests.swift` checks that). Adding a language is a
/// case here, its catalogue, and its plural rule.
public enum PageLanguage: String, CaseIterable, Sendable {
    case english = "en"
    case chinese = "zh"
    case german = "de"
    case spanish = "es"
    case french = "fr"

    /// The catalogue's file name in the web root (one flat name: `StaticSite` serves those only).
    public var catalogueFileName: String { "i18n-\(rawValue).json" }

    /// The `lang` attribute of a page in this language (BCP 47): Simplified Chinese script.
    public var tag: String { self == .chinese ? "zh-Hans" : rawValue }

    /// All five are written left to right; `dir` is set all the same, so a right-to-left
    /// language added later needs only this line.
    public var direction: String { "ltr" }

    /// The language's CLDR plural category for a whole count, as `Intl.PluralRules` gives it on
    /// the page: Chinese has no plural, French counts 0 and 1 as one, English, German and Spanish
    /// only 1. (Spanish's "many" for millions falls back to "other", as catalogues may.)
    public func pluralCategory(_ count: UInt64) -> String {
        switch self {
        case .chinese: "other"
        case .french: count <= 1 ? "one" : "other"
        case .english, .german, .spanish: count == 1 ? "one" : "other"
        }
    }

    /// RFC 4647 §3.4 lookup of one language range against ours: a range matches when it is a
    /// code of ours or starts with one and a hyphen (`de-AT`, `zh-Hans-CN`, `zh-CN`), in any case.
    init?(range: Substring) {
        let primary = range.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).first ?? range
        guard let language = PageLanguage.allCases.first(where: { primary.equalsIgnoringASCIICase($0.rawValue) }) else {
            return nil
        }
        // Traditional Chinese readers are better served by the next range (or English) than by
        // Simplified characters: `zh-Hant`, and Taiwan, Hong Kong and Macao without a script.
        if language == .chinese {
            let subtags = range.split(separator: "-").dropFirst()
            if let next = subtags.first, ["hant", "tw", "hk", "mo"].contains(where: { next.equalsIgnoringASCIICase($0) }) {
                return nil
            }
        }
        self = language
    }
}
