import Foundation
import Testing

@testable import FiledropCore

/// The catalogues in `web/`: every one has English's keys (plural forms as its plural rule has
/// them: Chinese has no "one") and, key by key, English's placeholders; the page template uses
/// only keys English has; the server loads them all without a problem.
@Suite struct CatalogueFilesTests {
    static let webRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("web")

    static func read(_ name: String) -> [UInt8]? {
        (try? Data(contentsOf: webRoot.appendingPathComponent(name))).map { Array($0) }
    }

    static func catalogue(_ language: PageLanguage) throws -> [String: String] {
        try Catalogue.parse(try #require(read(language.catalogueFileName)))
    }

    /// English's keys as `language` should have them: `.one` forms only where it has a "one".
    static func expectedKeys(_ language: PageLanguage, english: [String: String]) -> Set<String> {
        let hasOne = (0...2).contains { language.pluralCategory(UInt64($0)) == "one" }
        return Set(english.keys.filter { hasOne || !$0.hasSuffix(".one") })
    }

    @Test(arguments: PageLanguage.allCases)
    func sameKeysAndPlaceholdersAsEnglish(language: PageLanguage) throws {
        let english = try Self.catalogue(.english)
        let strings = try Self.catalogue(language)
        #expect(Set(strings.keys) == Self.expectedKeys(language, english: english))
        for (key, text) in strings {
            let reference = english[key] ?? ""
            #expect(Catalogue.placeholders(in: text) == Catalogue.placeholders(in: reference), "\(language) \(key)")
            #expect(!text.isEmpty, "\(language) \(key)")
        }
        #expect(strings["language.name"] != english["language.name"] || language == .english)
    }

    @Test func templateUsesEnglishKeysOnly() throws {
        let english = try Self.catalogue(.english)
        let template = String(decoding: try #require(Self.read("index.html")), as: UTF8.self)
        var marks: [String] = []
        var rest = template[...]
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            marks.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        #expect(marks.count > 30)
        for mark in marks where !mark.hasPrefix("@") {
            #expect(english[mark] != nil, "index.html uses \(mark)")
        }
    }

    /// Each language's page: its tag, no mark left, and its script's strings in it, those of
    /// this language only and none the server writes itself.
    @Test func theWebRootLoadsWithoutProblems() throws {
        let languages = PageLanguages(reading: Self.read)
        #expect(languages.problems.isEmpty)
        for language in PageLanguage.allCases {
            let page = String(decoding: try #require(languages.indexPage(language)).body, as: UTF8.self)
            #expect(page.contains("<html lang=\"\(language.tag)\" dir=\"ltr\">"))
            #expect(!page.contains("{{"))
            let start = try #require(page.firstRange(of: "<script type=\"application/json\" id=\"page-strings\">"))
            let end = try #require(page[start.upperBound...].firstRange(of: "</script>"))
            let strings = try FlatJSONObject.parse(Array(page[start.upperBound..<end.lowerBound].utf8))
            let catalogue = try Self.catalogue(language)
            #expect(strings["queue.done"] == catalogue["queue.done"])
            #expect(strings.keys.allSatisfy { key in !PageText.serverPrefixes.contains { key.hasPrefix($0) } })
            #expect(strings.allSatisfy { catalogue[$0.key] == $0.value })
            #expect(strings.count > 60)
        }
    }
}
