import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The upload routes against in-memory storage: the policy (names, limits, collisions,
/// atomicity) without a disk or a socket. The integration tests repeat the important ones live.
@Suite struct FiledropAppUploadTests {
    static func makeApp(_ configure: (inout Configuration) -> Void = { _ in }) -> (FiledropApp, InMemoryStorage) {
        var configuration = Configuration()
        configure(&configuration)
        let server = InMemoryServer(configuration: configuration)
        return (server.app, server.storage)
    }

    static func head(_ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders = [:]) -> RequestHead {
        InMemoryServer.head(method, target, headers)
    }

    /// Routes the head, feeds the body in `pieces`, returns the final response.
    static func send(_ app: FiledropApp, _ head: RequestHead, body: [UInt8] = [], pieces: Int = 1) -> Response {
        RequestDriver.send(app.route(head, context: InMemoryServer.context), body: body, pieces: pieces)
    }

    static func multipart(_ parts: [(name: String, filename: String?, body: String)], boundary: String = "XyZ") -> [UInt8] {
        var text = ""
        for part in parts {
            text += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { text += "; filename=\"\(filename)\"" }
            text += "\r\n\r\n\(part.body)\r\n"
        }
        return Array((text + "--\(boundary)--\r\n").utf8)
    }

    static func bodyText(_ response: Response) -> String {
        InMemoryServer.text(response)
    }

    static func path(_ components: String...) -> StoragePath { StoragePath(checkedComponents: components) }

    @Test(arguments: [1, 3, 1000])
    func multipartStoresEveryFileWhateverTheSplit(pieces: Int) {
        let (app, storage) = Self.makeApp()
        let body = Self.multipart([
            ("file", "a.txt", "alpha\r\n--Xy\r\n-XyZ--XyZ"), ("files[]", "b.bin", ""), ("note", nil, "ignored"),
        ])
        let response = Self.send(
            app, Self.head(.post, "/upload.html", ["Content-Type": "multipart/form-data; boundary=XyZ"]),
            body: body, pieces: pieces)
        #expect(response.status == .created)
        #expect(storage.files[Self.path("a.txt")] == Array("alpha\r\n--Xy\r\n-XyZ--XyZ".utf8))
        #expect(storage.files[Self.path("b.bin")] == [])
        #expect(storage.files.count == 2)
        #expect(storage.pendingUploads == 0)
    }

    @Test func relativePathFieldBuildsFolders() {
        let (app, storage) = Self.makeApp()
        let body = Self.multipart([("relativePath", nil, "photos/2024/a.jpg"), ("file", "a.jpg", "jpeg")])
        _ = Self.send(app, Self.head(.post, "/upload", ["Content-Type": "multipart/form-data; boundary=XyZ"]), body: body)
        #expect(storage.files[Self.path("photos", "2024", "a.jpg")] == Array("jpeg".utf8))
    }

    @Test(arguments: ["../../etc/passwd", "..%2f..%2fetc", "C:\\Windows\\x.txt", "/etc/passwd"])
    func traversalNamesNeverLeaveTheSaveDirectory(name: String) {
        let (app, storage) = Self.makeApp()
        let body = Self.multipart([("file", name, "x")])
        _ = Self.send(app, Self.head(.post, "/upload.html", ["Content-Type": "multipart/form-data; boundary=XyZ"]), body: body)
        for path in storage.files.keys {
            #expect(!path.components.contains(".."))
            #expect(path.components.count == 1)
        }
    }

    @Test func collisionsRenameByDefault() {
        let (app, storage) = Self.makeApp()
        for content in ["one", "two"] {
            let response = Self.send(app, Self.head(.put, "/files/a.txt", ["Content-Length": "3"]), body: Array(content.utf8))
            #expect(response.status == .created)
        }
        #expect(storage.files[Self.path("a.txt")] == Array("one".utf8))
        #expect(storage.files[Self.path("a (1).txt")] == Array("two".utf8))
    }

    @Test func collisionsCanBeRejectedWith409() {
        let (app, storage) = Self.makeApp { $0.onCollision = .reject }
        _ = Self.send(app, Self.head(.put, "/files/a.txt", ["Content-Length": "3"]), body: Array("one".utf8))
        let second = Self.send(app, Self.head(.put, "/files/a.txt", ["Content-Length": "3"]), body: Array("two".utf8))
        #expect(second.status == .conflict)
        #expect(storage.files[Self.path("a.txt")] == Array("one".utf8))
        #expect(storage.pendingUploads == 0)
    }

    @Test func collisionsCanOverwrite() {
        let (app, storage) = Self.makeApp { $0.onCollision = .overwrite }
        _ = Self.send(app, Self.head(.put, "/files/a.txt", ["Content-Length": "3"]), body: Array("one".utf8))
        _ = Self.send(app, Self.head(.put, "/files/a.txt", ["Content-Length": "3"]), body: Array("two".utf8))
        #expect(storage.files[Self.path("a.txt")] == Array("two".utf8))
        #expect(storage.files.count == 1)
    }

    @Test func declaredLengthOverTheLimitIsRefusedBeforeTheBody() {
        let (app, storage) = Self.makeApp { $0.maxUploadSize = 10 }
        let decision = app.route(
            Self.head(.put, "/files/big", ["Content-Length": "11"]), context: RequestContext(client: "t", wallClockSeconds: 0))
        guard case .respond(let response) = decision else {
            Issue.record("413 must be decided from the head")
            return
        }
        #expect(response.status == .contentTooLarge)
        #expect(storage.pendingUploads == 0)
        let atLimit = Self.send(app, Self.head(.put, "/files/ok", ["Content-Length": "10"]), body: Array(repeating: 1, count: 10))
        #expect(atLimit.status == .created)
    }

    @Test func streamedBodyOverTheLimitIsDiscarded() {
        let (app, storage) = Self.makeApp { $0.maxUploadSize = 10 }
        let response = Self.send(
            app, Self.head(.put, "/files/big", ["Transfer-Encoding": "chunked"]),
            body: Array(repeating: 1, count: 11), pieces: 11)
        #expect(response.status == .contentTooLarge)
        #expect(storage.files.isEmpty)
        #expect(storage.pendingUploads == 0)
    }

    @Test func oneBadFileDoesNotLoseTheOthers() {
        let (app, storage) = Self.makeApp { $0.maxUploadSize = 5 }
        let body = Self.multipart([("file", "small.txt", "tiny"), ("file", "large.txt", "far too large")])
        let response = Self.send(
            app,
            Self.head(
                .post, "/upload.html", ["Content-Type": "multipart/form-data; boundary=XyZ", "Accept": "application/json"]),
            body: body)
        #expect(storage.files[Self.path("small.txt")] == Array("tiny".utf8))
        #expect(storage.files[Self.path("large.txt")] == nil)
        #expect(Self.bodyText(response).contains("\"status\":413"))
        #expect(storage.pendingUploads == 0)
    }

    @Test func fullDiskIs507AndLeavesNothing() {
        let (app, storage) = Self.makeApp()
        storage.state.withLock { $0.capacity = 4 }
        let response = Self.send(app, Self.head(.put, "/files/a.txt", ["Content-Length": "8"]), body: Array("12345678".utf8))
        #expect(response.status == .insufficientStorage)
        #expect(storage.files.isEmpty)
        #expect(storage.pendingUploads == 0)
    }

    @Test func truncatedMultipartIsRejectedAndDiscarded() {
        let (app, storage) = Self.makeApp()
        var body = Self.multipart([("file", "a.txt", "abcdef")])
        body.removeLast(12)
        let response = Self.send(
            app, Self.head(.post, "/upload.html", ["Content-Type": "multipart/form-data; boundary=XyZ"]), body: body)
        #expect(response.status == .badRequest)
        #expect(storage.files.isEmpty)
        #expect(storage.pendingUploads == 0)
    }

    @Test func responseFitsTheClient() {
        let (app, _) = Self.makeApp()
        let body = Self.multipart([("file", "<b>x</b>.txt", "x")])
        let html = Self.send(
            app, Self.head(.post, "/upload.html", ["Content-Type": "multipart/form-data; boundary=XyZ", "Accept": "text/html"]),
            body: body)
        #expect(html.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(Self.bodyText(html).contains("&lt;b&gt;x&lt;/b&gt;.txt"))
        #expect(!Self.bodyText(html).contains("<b>x</b>"))
        let json = Self.send(
            app,
            Self.head(
                .post, "/upload.html", ["Content-Type": "multipart/form-data; boundary=XyZ", "Accept": "application/json"]),
            body: body)
        #expect(Self.bodyText(json).hasPrefix("{\"files\":[{\"name\":\"<b>x</b> (1).txt\""))
        let text = Self.send(
            app, Self.head(.post, "/upload.html", ["Content-Type": "multipart/form-data; boundary=XyZ"]), body: body)
        #expect(Self.bodyText(text).hasPrefix("stored <b>x</b> (2).txt 1 bytes"))
    }

    @Test func readOnlyRefusesUploads() {
        let (app, storage) = Self.makeApp { $0.access = .readOnly }
        let response = Self.send(app, Self.head(.put, "/files/a", ["Content-Length": "1"]), body: [1])
        #expect(response.status == .forbidden)
        #expect(storage.pendingUploads == 0)
    }

    @Test func rawPostNeedsANameOrMultipart() {
        let (app, storage) = Self.makeApp()
        let plain = Self.send(
            app, Self.head(.post, "/upload.html", ["Content-Type": "text/plain", "Content-Length": "2"]), body: [1, 2])
        #expect(plain.status == .unsupportedMediaType)
        let named = Self.send(
            app, Self.head(.post, "/upload.html?name=notes%20one.txt", ["Content-Type": "text/plain", "Content-Length": "2"]),
            body: [1, 2])
        #expect(named.status == .created)
        #expect(storage.files[Self.path("notes one.txt")] == [1, 2])
    }
}
