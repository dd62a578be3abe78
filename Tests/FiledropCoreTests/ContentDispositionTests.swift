import Testing

@testable import FiledropCore

@Suite struct ContentDispositionTests {
    @Test func formDataWithNameAndFilename() throws {
        let disposition = try #require(ContentDisposition(parsing: "form-data; name=\"files[]\"; filename=\"a b.txt\""))
        #expect(disposition == ContentDisposition(type: "form-data", name: "files[]", filename: "a b.txt"))
    }

    @Test func extendedFilenameWinsOverPlain() throws {
        let disposition = try #require(
            ContentDisposition(
                parsing: "form-data; name=\"f\"; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt"))
        #expect(disposition.filename == "€ rates.txt")
        let latin1 = try #require(ContentDisposition(parsing: "Form-Data; FILENAME*=iso-8859-1'en'caf%E9.txt; filename=x"))
        #expect(latin1.type == "form-data")
        #expect(latin1.filename == "café.txt")
    }

    @Test(arguments: ["UTF-8''%E2%82", "UTF-8''%ZZ", "KOI8-R''%C1", "no-quotes-at-all", "UTF-8'%E2%82%AC"])
    func unusableExtendedFilenameFallsBack(_ extended: String) throws {
        let disposition = try #require(
            ContentDisposition(parsing: "form-data; name=f; filename*=\(extended); filename=\"plain.txt\""))
        #expect(disposition.filename == "plain.txt")
    }

    @Test func browserEscapesAreUndoneButOtherPercentsKept() throws {
        // Chromium and Firefox send `"` as %22 and CR LF as %0D%0A; a literal `%20` is not an escape.
        let disposition = try #require(
            ContentDisposition(parsing: "form-data; name=\"a%22b\"; filename=\"say %22hi%22%0D%0A50%20off%2e.txt\""))
        #expect(disposition.name == "a\"b")
        #expect(disposition.filename == "say \"hi\"\r\n50%20off%2e.txt")
    }

    @Test func rawUTF8IsKeptAndNormalizedToNFC() throws {
        let decomposed = "e\u{301}te\u{301}.txt"
        let disposition = try #require(ContentDisposition(parsing: "form-data; name=\"f\"; filename=\"\(decomposed)\""))
        #expect(disposition.filename == "été.txt")
        #expect(disposition.filename?.unicodeScalars.count == 7)
    }

    @Test func backslashEscapesAndWindowsPaths() throws {
        let escaped = try #require(ContentDisposition(parsing: #"form-data; name="f"; filename="q\"uote\\d.txt""#))
        #expect(escaped.filename == #"q"uote\d.txt"#)
        // Old Internet Explorer: a full path, backslashes not escaped. Returned as sent.
        let windows = try #require(ContentDisposition(parsing: #"form-data; name="f"; filename="C:\Users\x\a.txt""#))
        #expect(windows.filename == #"C:\Users\x\a.txt"#)
        let folder = try #require(ContentDisposition(parsing: "form-data; name=f; filename=\"dir/sub/a.txt\""))
        #expect(folder.filename == "dir/sub/a.txt")
    }

    @Test func emptyAndMissingFilename() throws {
        #expect(try #require(ContentDisposition(parsing: "form-data; name=\"f\"; filename=\"\"")).filename == "")
        #expect(try #require(ContentDisposition(parsing: "form-data; name=\"relativePath\"")).filename == nil)
        #expect(try #require(ContentDisposition(parsing: "form-data")).name == nil)
    }

    @Test(arguments: ["", "; name=x", "form-data; name=\"open", "form-data; name", "form-data name=x"])
    func malformedValuesAreRefused(_ text: String) {
        #expect(ContentDisposition(parsing: text) == nil)
    }
}
