import FiledropHTTP

/// The catalogues of every language and the upload page rendered in each, loaded from the web
/// root when the daemon starts and again on SIGHUP. A catalogue that is missing or broken is
/// left out (its language then reads English), and a problem is reported once per load for the
/// log, never thrown: a bad translation must not stop the daemon or a reload.
public struct PageLanguages: Sendable {
    private var catalogues: [PageLanguage: [String: String]] = [:]
    private var indexPages: [PageLanguage: IndexPage] = [:]

    /// No catalogues and no rendered page: every page reads its keys (tests, a bare web root).
    public init() {}

    /// The problems found while loading, one sentence each, for one log line apiece.
    public private(set) var problems: [String] = []

    /// `read` gives a web root file's bytes by name, or nil when it cannot be read.
    public init(reading read: (String) -> [UInt8]?) {
        for language in PageLanguage.allCases {
            // English is every language's fallback: without it, missing strings show their keys.
            let outcome =
                language == .english
                ? "pages show string keys where English is missing"
                : "\(language.rawValue) pages are in English"
            guard let bytes = read(language.catalogueFileName) else {
                problems.append("the catalogue \(language.catalogueFileName) cannot be read; \(outcome)")
                continue
            }
            do {
                catalogues[language] = try Catalogue.parse(bytes)
            } catch {
                problems.append(
                    "the catalogue \(language.catalogueFileName) is not a flat JSON object of strings (\(error)); \(outcome)")
            }
        }
        if let template = read(IndexPage.templateName) {
            for language in PageLanguage.allCases {
                indexPages[language] = IndexPage(template: template, text: text(language))
            }
        }
    }

    public func text(_ language: PageLanguage) -> PageText {
        PageText(
            language: language, strings: catalogues[language] ?? [:], english: catalogues[.english] ?? [:],
            switchLinks: switchLinks(current: language))
    }

    public func text(for head: RequestHead) -> PageText {
        text(LanguageChoice.language(for: head))
    }

    /// The upload page in `language`, nil when the web root has no `index.html`.
    func indexPage(_ language: PageLanguage) -> IndexPage? {
        indexPages[language]
    }

    /// Each language's own name (`language.name` in its catalogue), the current one marked.
    private func switchLinks(current: PageLanguage) -> String {
        PageLanguage.allCases.map { language in
            let name = (catalogues[language]?["language.name"] ?? language.rawValue).htmlEscaped
            let code = language.rawValue
            let marked = language == current ? " aria-current=\"true\"" : ""
            return "<li><a href=\"?lang=\(code)\" lang=\"\(language.tag)\" hreflang=\"\(language.tag)\"\(marked)>\(name)</a></li>"
        }.joined()
    }
}
