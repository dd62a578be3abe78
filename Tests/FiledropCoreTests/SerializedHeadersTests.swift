import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// A response carrying its headers serialized ahead goes on the wire byte for byte as it would
/// without them, and loses them as soon as its headers change.
@Suite struct SerializedHeadersTests {
    /// Every way a head is framed: keep-alive or close, HTTP/1.1 or 1.0.
    static let connections: [(version: HTTPVersion, keepAlive: Bool)] = [
        (.http1_1, true), (.http1_1, false), (.http1_0, true), (.http1_0, false),
    ]

    static func wire(_ response: Response, version: HTTPVersion, keepAlive: Bool) -> String {
        let head = ResponseHeadSerializer.serialize(
            response, version: version, keepAlive: keepAlive,
            date: "Tue, 14 Nov 2023 22:13:20 GMT"
        ).head
        return String(decoding: head, as: UTF8.self)
    }

    /// The same response with its fields written one by one.
    static func withoutBlock(_ response: Response) -> Response {
        Response(status: response.status, headers: response.headers, body: response.body)
    }

    static let fieldSets: [HTTPHeaders] = [
        HTTPHeaders(),
        ["Content-Type": "image/png", "ETag": "\"1-2-3\""],
        // A policy and a frame option of the handler's own replace the defaults.
        ["Content-Security-Policy": "sandbox", "X-Frame-Options": "SAMEORIGIN", "Content-Type": "text/plain"],
        ["x-content-type-options": "nosniff", "Referrer-Policy": "same-origin"],
        // Framing fields are the serializer's: dropped from the block as from the loop.
        ["Content-Length": "5", "Connection": "keep-alive", "Transfer-Encoding": "chunked", "X-Kept": "yes"],
        ["Caf\u{E9}-Name": "val\u{FC}e", "Vary": "Accept-Encoding"],
    ]

    static let bodies: [ResponseBody] = [.empty, .bytes(Array("hello".utf8))]

    @Test(arguments: fieldSets, [HTTPStatus.ok, .notModified, .noContent, .partialContent])
    func theBlockWritesWhatTheFieldsWould(headers: HTTPHeaders, status: HTTPStatus) {
        let prepared = SerializedHeaders(headers)
        for body in Self.bodies {
            let response = Response(status: status, headers: prepared, body: body)
            #expect(response.fieldBlock == prepared.fieldBlock)
            for (version, keepAlive) in Self.connections {
                #expect(
                    Self.wire(response, version: version, keepAlive: keepAlive)
                        == Self.wire(Self.withoutBlock(response), version: version, keepAlive: keepAlive))
            }
        }
    }

    @Test func theBlockIsTheFieldLinesOnly() {
        let prepared = SerializedHeaders([
            "Content-Type": "text/plain", "Content-Security-Policy": "sandbox", "Content-Length": "9",
        ])
        #expect(
            String(decoding: prepared.fieldBlock, as: UTF8.self) == """
                Content-Type: text/plain\r
                Content-Security-Policy: sandbox\r
                X-Content-Type-Options: nosniff\r
                Referrer-Policy: no-referrer\r
                X-Frame-Options: DENY\r

                """)
    }

    /// Each way of changing the headers of a response that came with a block.
    enum Edit: CaseIterable {
        case add, addByName, replaceOrAdd, remove, assign, addVary

        func apply(to headers: inout HTTPHeaders) {
            switch self {
            case .add: headers.add(name: "Content-Range", value: "bytes 0-0/4096")
            case .addByName: headers.add(.contentType, "text/html")
            case .replaceOrAdd: headers.replaceOrAdd(name: "Content-Type", value: "multipart/byteranges; boundary=B")
            case .remove: headers.remove(name: "ETag")
            case .assign: headers = ["Content-Type": "text/plain"]
            case .addVary: headers.addVary("Accept-Encoding")
            }
        }
    }

    @Test(arguments: Edit.allCases)
    func editingTheHeadersDropsTheBlock(_ edit: Edit) {
        let original: HTTPHeaders = ["Content-Type": "image/png", "ETag": "\"1\""]
        var response = Response(status: .ok, headers: SerializedHeaders(original), body: .bytes([1, 2, 3]))
        #expect(response.fieldBlock != nil)
        edit.apply(to: &response.headers)
        #expect(response.fieldBlock == nil)
        // The head shows the edit: written from the fields, not from a stale block.
        var expected = original
        edit.apply(to: &expected)
        let written = Self.wire(response, version: .http1_1, keepAlive: true)
        #expect(
            written
                == Self.wire(
                    Response(status: .ok, headers: expected, body: .bytes([1, 2, 3])), version: .http1_1, keepAlive: true))
        #expect(written.contains("ETag") == expected.contains("etag"))
    }

    @Test func statusAndBodyChangesKeepTheBlock() {
        var response = Response(status: .ok, headers: SerializedHeaders(["Content-Type": "image/png"]), body: .bytes([1]))
        response.status = .notModified
        response.body = .empty
        #expect(response.fieldBlock != nil)
        #expect(
            Self.wire(response, version: .http1_1, keepAlive: true)
                == Self.wire(Self.withoutBlock(response), version: .http1_1, keepAlive: true))
    }

    @Test func aPlainResponseHasNoBlock() {
        #expect(Response(status: .ok, headers: ["Content-Type": "text/plain"]).fieldBlock == nil)
    }
}
