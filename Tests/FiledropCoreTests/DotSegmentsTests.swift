import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// RFC 3986 §5.2.4 for `.` segments (RFC 9110 §4.2.3); `..` and `%2e` are never resolved.
@Suite struct DotSegmentsTests {
    @Test(arguments: [
        ("/files/a/./b.txt", "/files/a/b.txt"),
        ("/files/./a:b.txt", "/files/a:b.txt"),
        ("/files/././a", "/files/a"),
        ("/files/a/.", "/files/a/"),
        ("/files/a/./", "/files/a/"),
        ("/files/.", "/files/"),
        ("/.", "/"),
        ("/./", "/"),
        ("/./app.js", "/app.js"),
        ("/files/a//./b", "/files/a//b"),
        ("/files/caf\u{E9}/./x", "/files/caf\u{E9}/x"),
    ])
    func singleDotsAreRemoved(path: String, expected: String) {
        #expect(DotSegments.removingSingleDots(from: Substring(path)) == Substring(expected))
    }

    @Test(arguments: [
        "/", "/files/", "/files/a.txt", "/files/.hidden", "/files/a./b", "/files/.a/b", "/files/a/..",
        "/files/../x", "/files/%2e/x", "/files/%2E/x", "/files/.%2e/x", "/files/...", "/files/a/.\u{301}/b",
        "*", "example.com:443",
    ])
    func everythingElseIsLeftAsSent(path: String) {
        #expect(DotSegments.removingSingleDots(from: Substring(path)) == Substring(path))
    }

    @Test func dotsNextToDotDotLeaveTheDotDotInPlace() {
        #expect(DotSegments.removingSingleDots(from: "/files/a/./../b") == "/files/a/../b")
        #expect(DotSegments.removingSingleDots(from: "/files/./../b") == "/files/../b")
    }

    @Test func theHeadsPathHasNoDotSegmentsButTheTargetIsKeptAsSent() {
        let head = RequestHead(method: .get, target: "/files/a/./b.txt?x=/./", version: .http1_1, headers: ["Host": "a"])
        #expect(head.path == "/files/a/b.txt")
        #expect(head.query == "x=/./")
        #expect(head.target == "/files/a/./b.txt?x=/./")
        let absolute = RequestHead(method: .get, target: "http://127.0.0.1/files/./b.txt", version: .http1_1, headers: [:])
        #expect(absolute.path == "/files/b.txt")
    }

    typealias Upload = FiledropAppUploadTests

    static func stored() -> (FiledropApp, InMemoryStorage) {
        let (app, storage) = Upload.makeApp {
            $0.access = .open
            $0.allowDelete = true
        }
        storage.state.withLock {
            $0.files[StoragePath(checkedComponents: ["keep.txt"])] = Array("x".utf8)
            $0.files[StoragePath(checkedComponents: ["a:b.txt"])] = Array("colon".utf8)
        }
        return (app, storage)
    }

    /// (Downloads need a real file: the integration tests GET through `.` segments.)
    @Test(arguments: ["/files/./new:1.txt", "/files/././new:1.txt", "/./files/new:1.txt", "/files/./a/./new:1.txt"])
    func aDotSegmentStoresUnderTheSameName(target: String) {
        let (app, storage) = Self.stored()
        #expect(Upload.send(app, Upload.head(.put, target), body: Array("new".utf8)).status == .created)
        let name = target.contains("/a/") ? ["a", "new:1.txt"] : ["new:1.txt"]
        #expect(storage.files[StoragePath(checkedComponents: name)] == Array("new".utf8))
    }

    @Test(arguments: ["/files/./", "/files/.", "/./files/"])
    func aDotSegmentListsTheSameFolder(target: String) {
        let (app, _) = Self.stored()
        let response = Upload.send(app, Upload.head(.get, target, ["Accept": "application/json"]))
        #expect(response.status == .ok)
        #expect(Upload.bodyText(response).contains("a:b.txt"))
    }

    @Test func aDotSegmentDeletesTheSameFile() {
        let (app, storage) = Self.stored()
        #expect(Upload.send(app, Upload.head(.delete, "/files/./keep.txt")).status == .noContent)
        #expect(storage.files.count == 1)
    }

    /// The traversal defence is unchanged: `..` and an encoded dot in any form are refused.
    @Test(arguments: [
        "/files/./../keep.txt", "/files/a/./../keep.txt", "/files/%2e/keep.txt", "/files/%2E%2E/keep.txt", "/files/.%2e/keep.txt",
    ])
    func dotDotAndEncodedDotsAreStillRefused(target: String) {
        let (app, storage) = Self.stored()
        #expect(Upload.send(app, Upload.head(.get, target)).status == .badRequest)
        #expect(Upload.send(app, Upload.head(.delete, target)).status == .badRequest)
        #expect(storage.files.count == 2)
    }

    /// The parser finds a target's query and `.` segments while it checks its bytes: the path
    /// and query it gives must be the ones `RequestHead` works out from the target alone.
    @Test func theParsersSplitIsTheHeadsOwn() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["/", ".", "..", "a", "?", "x=1", "%2e", "é", "&", "b.txt"]
        var targets = ["/", "/.", "/?", "/.?", "/./?a=/./", "/a/.?x", "/a/..?", "/?./", "/files/a/./b?c/./d", "/é/./x"]
        for _ in 0..<2_000 {
            targets.append(
                "/"
                    + (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                        pieces.randomElement(using: &generator)!
                    }.joined())
        }
        for target in targets {
            let result = ThreeWayFeeding.parseHead(Array("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
            guard case .complete(let parsed, _) = result else {
                Issue.record("\(target) not parsed: \(result)")
                continue
            }
            let built = RequestHead(method: .get, target: target, version: .http1_1, headers: parsed.headers)
            #expect(parsed.path == built.path, "path of \(target)")
            #expect(parsed.query == built.query, "query of \(target)")
        }
    }
}
