import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// What an upload's answer says the file was saved as: the renamed name for the page's
/// "saved as" (tus included), and nothing of it in a drop box, where a renamed
/// "hello (1).txt" would tell an anonymous sender that "hello.txt" exists.
@Suite struct SavedAsTests {
    typealias Upload = FiledropAppUploadTests
    typealias Tus = TusHandlerTests

    static let jsonForm: HTTPHeaders = ["Content-Type": "multipart/form-data; boundary=XyZ", "Accept": "application/json"]

    static func uploadTwice(_ mode: AccessMode) -> Response {
        let (app, _) = Upload.makeApp { $0.access = mode }
        let body = Upload.multipart([("file", "hello.txt", "one")])
        _ = Upload.send(app, Upload.head(.post, "/upload.html", jsonForm), body: body)
        return Upload.send(app, Upload.head(.post, "/upload.html", jsonForm), body: body)
    }

    @Test func anOpenServerSaysTheRenamedName() {
        let response = Self.uploadTwice(.open)
        #expect(Upload.bodyText(response).contains("\"name\":\"hello (1).txt\""))
        #expect(response.headers["Location"] != nil)
    }

    @Test func aDropBoxSaysTheSizeOnly() {
        let response = Self.uploadTwice(.drop)
        #expect(response.status == .created)
        #expect(Upload.bodyText(response).hasPrefix("{\"files\":[{\"size\":3,\"crc32\":"))
        #expect(!Upload.bodyText(response).contains("hello"))
        #expect(response.headers["Location"] == nil)
    }

    @Test func aDropBoxsPlainAnswersNameNoFileEither() {
        let (app, _) = Upload.makeApp { $0.access = .drop }
        let put = Upload.head(.put, "/files/hello.txt", ["Content-Length": "3", "Accept": "text/plain"])
        _ = Upload.send(app, put, body: Array("one".utf8))
        let text = Upload.bodyText(Upload.send(app, put, body: Array("one".utf8)))
        #expect(text == "stored 3 bytes\n")
    }

    static func tusTwice(_ mode: AccessMode) throws -> Response {
        let server = Tus.Server { $0.access = mode }
        var last: Response?
        for _ in 0..<2 {
            let location = try #require(server.create(length: 3, name: "fox.txt").headers["location"])
            last = server.patch(location, offset: 0, Array("abc".utf8))
        }
        return try #require(last)
    }

    @Test func theLastTusPatchSaysWhereTheFileWent() throws {
        let response = try Self.tusTwice(.open)
        #expect(response.status == .noContent)
        #expect(response.headers["Filedrop-Saved-As"]?.hasPrefix("/files/fox") == true)
        #expect(response.headers["Filedrop-Saved-As"] != "/files/fox.txt")
    }

    @Test func aDropBoxsTusAnswerDoesNot() throws {
        let response = try Self.tusTwice(.drop)
        #expect(response.status == .noContent)
        #expect(response.headers["Filedrop-Saved-As"] == nil)
    }
}
