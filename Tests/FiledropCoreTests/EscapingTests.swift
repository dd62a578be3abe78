import Testing

@testable import FiledropCore

@Suite struct EscapingTests {
    @Test(arguments: [
        ("plain", "plain"),
        (#"<a href="x">Tom & Jerry's</a>"#, "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"),
        ("&amp;", "&amp;amp;"),
        ("😀 é", "😀 é"),
    ])
    func html(input: String, output: String) {
        #expect(input.htmlEscaped == output)
    }

    @Test(arguments: [
        ("plain 😀", "plain 😀"),
        (#"say "hi" \ bye"#, #"say \"hi\" \\ bye"#),
        ("a\nb\tc\u{0}d\u{1F}e", #"a\u000ab\u0009c\u0000d\u001fe"#),
        ("line\u{2028}para\u{2029}", #"line\u2028para\u2029"#),
        ("del\u{7F}</script>", "del\u{7F}</script>"),
    ])
    func json(input: String, output: String) {
        #expect(input.jsonEscaped == output)
    }

    @Test(arguments: [
        ("file 1.txt", "file 1.txt"),
        ("a\nb\rc\td", #"a\nb\rc\td"#),
        ("\u{1B}[31mred", #"\x1b[31mred"#),
        ("nul\u{0}del\u{7F}", #"nul\x00del\x7f"#),
        ("back\\slash", #"back\\slash"#),
        ("c1\u{85}\u{9B}", #"c1\u0085\u009b"#),
        ("sep\u{2028}\u{2029}", #"sep\u2028\u2029"#),
        ("evil\u{202E}txt.exe", #"evil\u202etxt.exe"#),
        ("iso\u{2066}x\u{2069}", #"iso\u2066x\u2069"#),
        ("😀 é \u{A0}", "😀 é \u{A0}"),
        ("crlf\r\n", #"crlf\r\n"#),
    ])
    func log(input: String, output: String) {
        #expect(input.logEscaped == output)
    }

    /// Whatever goes in, what comes out is one line with no control character in it.
    @Test func logEscapedNeverContainsControls() {
        var everything = ""
        for value in UInt32(0)...0x30FF {
            if let scalar = Unicode.Scalar(value) { everything.unicodeScalars.append(scalar) }
        }
        let escaped = everything.logEscaped
        #expect(!escaped.unicodeScalars.contains { $0.properties.generalCategory == .control })
        #expect(
            !escaped.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x2029 || (0x202A...0x202E).contains($0.value) })
    }

    @Test(arguments: [
        ("a.txt", #""a.txt""#),
        (#"say "hi"\"#, #""say \"hi\"\\""#),
        ("new\nline é", #""new_line _""#),
    ])
    func headerQuoted(input: String, output: String) {
        #expect(input.headerQuoted == output)
    }

    @Test(arguments: [
        ("report.pdf", DispositionType.attachment, #"attachment; filename="report.pdf"; filename*=UTF-8''report.pdf"#),
        ("my file.txt", .inline, #"inline; filename="my file.txt"; filename*=UTF-8''my%20file.txt"#),
        ("€ rates.txt", .attachment, #"attachment; filename="_ rates.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt"#),
        ("😀.bin", .attachment, #"attachment; filename="_.bin"; filename*=UTF-8''%F0%9F%98%80.bin"#),
        ("e\u{301}.txt", .attachment, #"attachment; filename="_.txt"; filename*=UTF-8''e%CC%81.txt"#),
        (#"a"b\c%41.txt"#, .attachment, #"attachment; filename="a_b_c_41.txt"; filename*=UTF-8''a%22b%5Cc%2541.txt"#),
        ("x\r\ny\u{0}.txt", .attachment, #"attachment; filename="x_y_.txt"; filename*=UTF-8''x%0D%0Ay%00.txt"#),
        ("!#$&+-.^_`|~az09AZ", .attachment, #"attachment; filename="!#$&+-.^_`|~az09AZ"; filename*=UTF-8''!#$&+-.^_`|~az09AZ"#),
        (
            "(x)'*;=@[]{}", .attachment,
            #"attachment; filename="(x)'*;=@[]{}"; filename*=UTF-8''%28x%29%27%2A%3B%3D%40%5B%5D%7B%7D"#
        ),
    ])
    func contentDisposition(filename: String, disposition: DispositionType, expected: String) {
        #expect(contentDispositionValue(filename: filename, disposition: disposition) == expected)
    }

    @Test func contentDispositionDefaultsToAttachment() {
        #expect(contentDispositionValue(filename: "a").hasPrefix("attachment; "))
    }
}
