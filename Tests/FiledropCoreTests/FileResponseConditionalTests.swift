import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// RFC 9110 §13 validators against a file whose ETag is `"abc"` and whose Last-Modified is
/// 1,700,000,000 s: If-Match and If-Unmodified-Since (412 when false), If-None-Match and
/// If-Modified-Since (304 when false), each with a fresh and a stale validator.
@Suite struct FileResponseConditionalTests {
    static let etag = "\"abc\""
    static let modified: Int64 = 1_700_000_000

    static func head(_ headers: HTTPHeaders, method: HTTPMethod = .get) -> RequestHead {
        var all: HTTPHeaders = ["Host": "localhost"]
        for (name, value) in headers { all.add(name: name, value: value) }
        return RequestHead(method: method, target: "/files/a.bin", version: .http1_1, headers: all)
    }

    static func holds(_ headers: HTTPHeaders) -> Bool {
        FileResponse.preconditionsHold(head: head(headers), etag: etag, modifiedSeconds: modified)
    }

    static func notModified(_ headers: HTTPHeaders, method: HTTPMethod = .get) -> Bool {
        FileResponse.isNotModified(head: head(headers, method: method), etag: etag, modifiedSeconds: modified)
    }

    @Test(
        arguments: [
            (HTTPHeaders(), true),
            (["If-Match": "\"abc\""], true),
            (["If-Match": "\"old\", \"abc\""], true),
            (["If-Match": "*"], true),
            (["If-Match": "\"old\""], false),
            // §13.1.1: If-Match compares strongly; a weak tag never matches.
            (["If-Match": "W/\"abc\""], false),
            (["If-Unmodified-Since": HTTPDate.format(modified)], true),
            (["If-Unmodified-Since": HTTPDate.format(modified + 60)], true),
            (["If-Unmodified-Since": HTTPDate.format(modified - 1)], false),
            // §13.1.4: ignored when If-Match is present, and when it is not a date.
            (["If-Match": "\"abc\"", "If-Unmodified-Since": HTTPDate.format(modified - 1)], true),
            (["If-Unmodified-Since": "yesterday"], true),
        ] as [(HTTPHeaders, Bool)])
    func preconditions(headers: HTTPHeaders, expected: Bool) {
        #expect(Self.holds(headers) == expected)
    }

    @Test(
        arguments: [
            (HTTPHeaders(), false),
            (["If-None-Match": "\"abc\""], true),
            (["If-None-Match": "W/\"abc\""], true),
            (["If-None-Match": "*"], true),
            (["If-None-Match": "\"old\""], false),
            (["If-Modified-Since": HTTPDate.format(modified)], true),
            (["If-Modified-Since": HTTPDate.format(modified - 1)], false),
            // §13.1.3: If-Modified-Since is ignored when If-None-Match is present.
            (["If-None-Match": "\"old\"", "If-Modified-Since": HTTPDate.format(modified)], false),
        ] as [(HTTPHeaders, Bool)])
    func notModified(headers: HTTPHeaders, expected: Bool) {
        #expect(Self.notModified(headers) == expected)
    }

    @Test func notModifiedOnlyForGetAndHead() {
        #expect(Self.notModified(["If-None-Match": "\"abc\""], method: .head))
        #expect(!Self.notModified(["If-None-Match": "\"abc\""], method: .put))
    }
}
