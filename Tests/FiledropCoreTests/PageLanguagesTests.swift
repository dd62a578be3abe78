import Foundation
import Testing

@testable import FiledropCore

/// Loading: a missing or broken catalogue is one problem and its language reads English; with
/// no catalogue at all the keys stand in. Text: plurals, placeholders, escaping, sizes.
@Suite struct PageLanguagesTests {
    static let english =
        #"{"language.name":"English","report.saved.one":"{count} file saved","report.saved.other":"{count} files saved","number.decimalSeparator":".","size.bytes.one":"{count} byte","size.bytes.other":"{count} bytes","greet":"Hello <{name}>"}"#
    static let german =
        #"{"language.name":"Deutsch","report.saved.one":"{count} Datei gespeichert","report.saved.other":"{count} Dateien gespeichert","number.decimalSeparator":",","size.bytes.other":"{count} Bytes"}"#

    static func files(_ files: [String: String]) -> (String) -> [UInt8]? {
        { name in files[name].map { Array($0.utf8) } }
    }

    @Test func missingAndBrokenCataloguesFallBackToEnglish() {
        let languages = PageLanguages(
            reading: Self.files([
                "i18n-en.json": Self.english, "i18n-de.json": Self.german, "i18n-fr.json": "{\"a\": 1}",
                "i18n-zh.json": String(repeating: " ", count: FlatJSONObject.defaultMaxBytes + 1),
            ]))
        #expect(languages.problems.count == 3)
        #expect(languages.problems.contains { $0.contains("i18n-fr.json") && $0.contains("byte 6") })
        #expect(languages.problems.contains { $0.contains("i18n-es.json") && $0.contains("cannot be read") })
        #expect(languages.text(.french).plural("report.saved", count: 2) == "2 files saved")
        #expect(languages.text(.german).plural("report.saved", count: 2) == "2 Dateien gespeichert")
        #expect(languages.text(.german)("greet", ["name": "x"]) == "Hello <x>")
        #expect(languages.text(.german).size(1536) == "1,5 KiB")
        #expect(languages.text(.german).size(1) == "1 Bytes")
        #expect(languages.text(.english).size(1) == "1 byte")
        #expect(languages.text(.english).size(3 << 30) == "3 GiB")
    }

    @Test func noCataloguesShowTheKeys() {
        let text = PageLanguages().text(.german)
        #expect(text("listing.name") == "listing.name")
        #expect(text.plural("report.saved", count: 3) == "report.saved.other")
    }

    @Test func htmlEscapesTextAndValuesButNotMarkup() {
        let text = PageLanguages(reading: Self.files(["i18n-en.json": Self.english])).text(.english)
        #expect(text.html("greet", ["name": "<b>&"]) == "Hello &lt;&lt;b&gt;&amp;&gt;")
        #expect(text.html("greet", markup: ["name": "<b>"]) == "Hello &lt;<b>&gt;")
    }

    @Test func indexPageFillsMarksOnce() {
        let template =
            "<html lang=\"{{@lang}}\" dir=\"{{@dir}}\"><script>{{@strings}}</script>{{greet}} {{ not a mark }} {{unknown.key}} {x}"
        let languages = PageLanguages(
            reading: Self.files([
                "i18n-en.json": Self.english, "i18n-de.json": Self.german, "index.html": template,
            ]))
        let page = String(decoding: languages.indexPage(.german)?.body ?? [], as: UTF8.self)
        // The script's strings only (not the result page's `report.`), German's "other" without English's "one".
        let strings = #"{"greet":"Hello <{name}>","size.bytes.other":"{count} Bytes"}"#
            .replacingOccurrences(of: "<", with: "\\u003c")
        #expect(
            page
                == "<html lang=\"de\" dir=\"ltr\"><script>\(strings)</script>Hello &lt;{name}&gt; {{ not a mark }} unknown.key {x}"
        )
        #expect(languages.indexPage(.german)?.etag != languages.indexPage(.english)?.etag)
    }
}
