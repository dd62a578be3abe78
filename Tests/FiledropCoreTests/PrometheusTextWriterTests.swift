import Testing

@testable import FiledropCore

/// The text exposition format as Prometheus parses it: escaping is where writers go wrong.
@Suite struct PrometheusTextWriterTests {
    static func text(_ write: (inout PrometheusTextWriter) -> Void) -> String {
        var writer = PrometheusTextWriter()
        write(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func familyHasHelpThenTypeThenSamples() {
        let text = Self.text { out in
            out.family("filedrop_things_total", .counter, help: "Things.")
            out.sample("filedrop_things_total", labels: ["kind": "a"], UInt64(3))
            out.sample("filedrop_things_total", labels: ["kind": "b", "size": "big"], UInt64(0))
        }
        #expect(
            text == """
                # HELP filedrop_things_total Things.
                # TYPE filedrop_things_total counter
                filedrop_things_total{kind="a"} 3
                filedrop_things_total{kind="b",size="big"} 0

                """)
    }

    @Test func sampleWithoutLabelsHasNoBraces() {
        #expect(Self.text { $0.sample("up", 1) } == "up 1\n")
        #expect(Self.text { $0.sample("level", -2) } == "level -2\n")
    }

    /// Backslash, double quote and line feed are the three escapes of a label value;
    /// everything else (UTF-8 included) goes as it is.
    @Test(arguments: [
        ("plain", "plain"),
        ("a\"b", "a\\\"b"),
        ("back\\slash", "back\\\\slash"),
        ("two\nlines", "two\\nlines"),
        ("\\\"\n", "\\\\\\\"\\n"),
        ("😀 é", "😀 é"),
        ("", ""),
    ])
    func labelValuesAreEscaped(value: String, written: String) {
        #expect(Self.text { $0.sample("m", labels: ["l": value], 1) } == "m{l=\"\(written)\"} 1\n")
    }

    /// HELP escapes backslash and line feed only: a quote stays a quote.
    @Test func helpTextIsEscaped() {
        let text = Self.text { $0.family("m", .gauge, help: "a \"b\" c\\d\ne") }
        #expect(text == "# HELP m a \"b\" c\\\\d\\ne\n# TYPE m gauge\n")
    }

    @Test func floatsUseTheFormatsSpellings() {
        #expect(PrometheusTextWriter.format(.infinity) == "+Inf")
        #expect(PrometheusTextWriter.format(-.infinity) == "-Inf")
        #expect(PrometheusTextWriter.format(.nan) == "NaN")
        #expect(PrometheusTextWriter.format(0.25) == "0.25")
        #expect(PrometheusTextWriter.format(300) == "300.0")
        #expect(Self.text { $0.sample("s", 0.018843994) } == "s 0.018843994\n")
    }

    @Test func metricNamesFollowTheDataModel() {
        #expect(PrometheusTextWriter.isValidName("filedrop_uploads_total"))
        #expect(PrometheusTextWriter.isValidName("job:rate5m"))
        #expect(!PrometheusTextWriter.isValidName("5xx"))
        #expect(!PrometheusTextWriter.isValidName("a-b"))
        #expect(!PrometheusTextWriter.isValidName(""))
    }
}
