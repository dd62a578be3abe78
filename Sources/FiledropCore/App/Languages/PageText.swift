import FiledropHTTP

/// The strings of the server's pages in one language, by key: the language's catalogue, then
/// English's for a key it lacks, then the key itself (a web root with no catalogue at all still
/// gives a readable, if terse, page). Catalogue text is plain text; the `html` forms escape it
/// and the values filled into its `{placeholders}`.
public struct PageText: Sendable {
    public let language: PageLanguage
    let strings: [String: String]
    let english: [String: String]
    /// The language switch's links, as `PageLanguages` built them for this language.
    let switchLinks: String

    /// RFC 9110 §12.5.5: every page whose words follow `LanguageChoice` names what chose them.
    public static let varyFields = ["Accept-Language", "Cookie"]

    /// The text of `key`, its `{name}` placeholders filled with `values` (not escaped).
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        filled(template(key), values)
    }

    /// `key` counted: `key.one` or `key.other` by the language's plural rule, `{count}` filled.
    public func plural(_ key: String, count: UInt64, _ values: [String: String] = [:]) -> String {
        var values = values
        values["count"] = String(count)
        return filled(template(pluralKey(key, count: count)), values)
    }

    /// `key` escaped for HTML, with escaped `values` and `markup` (our own HTML) filled in.
    public func html(_ key: String, _ values: [String: String] = [:], markup: [String: String] = [:]) -> String {
        var all = values.mapValues(\.htmlEscaped)
        all.merge(markup) { _, mine in mine }
        return filled(template(key).htmlEscaped, all)
    }

    /// `html` with the catalogue text's `*words*` as `<em>words</em>`: the names of buttons and
    /// settings a person looks for on their own device, as the trust page's steps give them.
    public func htmlEmphasising(_ key: String, markup: [String: String] = [:]) -> String {
        var escaped = ""
        for (index, part) in template(key).htmlEscaped.split(separator: "*", omittingEmptySubsequences: false).enumerated() {
            escaped += index % 2 == 1 ? "<em>\(part)</em>" : String(part)
        }
        return filled(escaped, markup)
    }

    public func htmlPlural(_ key: String, count: UInt64) -> String {
        plural(key, count: count).htmlEscaped
    }

    /// A size in binary units as on the page (`1.5 KiB`, German `1,5 KiB`; below 1 KiB the
    /// language's word for bytes).
    public func size(_ bytes: UInt64) -> String {
        guard bytes >= 1024 else { return plural("size.bytes", count: bytes) }
        // Without catalogues (or with a separator that is no one character) the point stays:
        // `template` would give the key itself, which is no Character.
        let separator = known("number.decimalSeparator").flatMap { $0.count == 1 ? $0.first : nil } ?? "."
        return String(ByteCount.format(bytes).map { $0 == "." ? separator : $0 })
    }

    /// `size` for many sizes in a row (a listing's rows): each distinct text is made once. A
    /// size shows as one of a few thousand texts (tenths of a unit), so the memo stays small.
    struct SizeTexts {
        static let capacity = 8192
        private let text: PageText
        private var made: [UInt64: String] = [:]

        init(_ text: PageText) {
            self.text = text
        }

        mutating func text(_ bytes: UInt64) -> String {
            let key = ByteCount.shownKey(bytes)
            if let known = made[key] { return known }
            let shown = text.size(bytes)
            if made.count < Self.capacity { made[key] = shown }
            return shown
        }
    }

    /// The text of `key` when this language or English has it, else nil.
    func known(_ key: String) -> String? {
        strings[key] ?? english[key]
    }

    /// This language's own form first (a catalogue without "one" means its language has none),
    /// then English's.
    func pluralKey(_ key: String, count: UInt64) -> String {
        let specific = key + "." + language.pluralCategory(count)
        let other = key + ".other"
        if strings[specific] != nil { return specific }
        if strings[other] != nil { return other }
        return english[specific] != nil ? specific : other
    }

    func template(_ key: String) -> String {
        strings[key] ?? english[key] ?? key
    }

    private func filled(_ template: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = values[name] {
                result += value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The catalogue groups only the server writes (the page's own markup, the listing, the
    /// result, error and trust pages); every other key is for the page's script.
    static let serverPrefixes = [
        "page.", "listing.", "report.", "error.", "refusal.", "status.", "language.", "number.", "trust.",
    ]

    /// The strings the page's script looks up, as one JSON object: this language's, and
    /// English's for a key it lacks (not a plural form it has none of, as Chinese's "one").
    /// `<` is escaped so the object can sit in a `<script type="application/json">` block.
    public var scriptStrings: String {
        let keys = Set(english.keys).union(strings.keys).filter { key in !Self.serverPrefixes.contains { key.hasPrefix($0) } }
        let members = keys.sorted().compactMap { key -> String? in
            let text: String
            if let own = strings[key] {
                text = own
            } else if let fallback = english[key], !hasOtherPluralForm(of: key) {
                text = fallback
            } else {
                return nil
            }
            return "\"\(key.jsonEscaped)\":\"\(text.jsonEscaped)\""
        }
        return String(("{" + members.joined(separator: ",") + "}").flatMap { $0 == "<" ? Array("\\u003c") : [$0] })
    }

    /// `report.saved.one` when this language has `report.saved.other` but no "one".
    private func hasOtherPluralForm(of key: String) -> Bool {
        guard key.hasSuffix(".one") || key.hasSuffix(".other"), !strings.isEmpty else { return false }
        let base = key.hasSuffix(".one") ? key.dropLast(4) : key.dropLast(6)
        return strings[base + ".other"] != nil || strings[base + ".one"] != nil
    }

    /// The language switch as a list of links (`?lang=de`), each name in its own language;
    /// the server answers such a link by setting the cookie (`LanguageSwitch`).
    public var languageSwitch: String {
        "<nav class=\"language-switch\" aria-label=\"\(html("language.switch"))\"><ul>\(switchLinks)</ul></nav>"
    }
}
