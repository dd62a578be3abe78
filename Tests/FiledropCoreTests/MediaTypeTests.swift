import Testing

@testable import FiledropCore

@Suite struct MediaTypeTests {
    @Test func quotedBoundaryFromChromium() throws {
        let type = try #require(MediaType(parsing: "multipart/form-data; boundary=\"----WebKitFormBoundaryX\""))
        #expect(type.type == "multipart" && type.subtype == "form-data")
        #expect(type.isMultipartFormData)
        #expect(type["BOUNDARY"] == "----WebKitFormBoundaryX")
        #expect(type.multipartBoundary == "----WebKitFormBoundaryX")
    }

    @Test func caseSpacingAndEscapes() throws {
        let type = try #require(
            MediaType(parsing: " Multipart/Form-Data ;Boundary=AbC ; charset = \"utf-8\";x=\"a\\\"b\\\\c\"; ;"))
        #expect(type.type == "multipart" && type.subtype == "form-data")
        #expect(type.parameters.map(\.name) == ["boundary", "charset", "x"])
        #expect(type["boundary"] == "AbC")
        #expect(type["charset"] == "utf-8")
        #expect(type["x"] == "a\"b\\c")
        #expect(type["missing"] == nil)
    }

    @Test(arguments: [
        "", "multipart", "multipart/", "/form-data", "multipart/form-data; boundary", "multipart/form-data; =x",
        "multipart/form-data; boundary=\"open", "multipart/form-data boundary=x", "multi part/form-data",
        "multipart/form-data; boundary=a b",
    ])
    func malformedValuesAreRefused(_ text: String) {
        #expect(MediaType(parsing: text) == nil)
    }

    @Test func boundaryValidityPerRFC2046() {
        #expect(MediaType.isValidBoundary("a"))
        #expect(MediaType.isValidBoundary(String(repeating: "b", count: 70)))
        #expect(!MediaType.isValidBoundary(String(repeating: "b", count: 71)))
        #expect(MediaType.isValidBoundary("gc0p4Jq0M2Yt08jU534c0p'()+_,-./:=? x"))
        #expect(!MediaType.isValidBoundary(""))
        #expect(!MediaType.isValidBoundary("ends in space "))
        #expect(!MediaType.isValidBoundary("semi;colon"))
        #expect(!MediaType.isValidBoundary("crlf\r\n"))
        #expect(!MediaType.isValidBoundary("é"))
        #expect(MediaType(parsing: "multipart/form-data; boundary=\"ends \"")?.multipartBoundary == nil)
        #expect(MediaType(parsing: "text/plain")?.isMultipartFormData == false)
    }
}
