import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// `mayHaveConditionalOrRange` may say yes too often, never no when a lookup would find something.
@Suite struct RequestHeadConditionalsTests {
    static func head(_ name: String) -> RequestHead {
        RequestHead(
            method: .get, target: "/files/a", version: .http1_1,
            headers: ["Host": "x", "Accept": "*/*", HTTPFieldName(name): "v"])
    }

    @Test(arguments: [
        "If-Match", "if-none-match", "IF-MODIFIED-SINCE", "If-Unmodified-Since", "If-Range", "Range", "range", "RANGE",
    ])
    func conditionalAndRangeFieldsAreSeen(_ name: String) {
        #expect(Self.head(name).mayHaveConditionalOrRange)
    }

    @Test(arguments: ["User-Agent", "Referer", "Accept-Encoding", "Cookie", "Ranges"])
    func otherFieldsAreNot(_ name: String) {
        #expect(!Self.head(name).mayHaveConditionalOrRange)
    }
}
