import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// With allow-hidden, a stored `.tus` folder would be shadowed by the tus upload URLs
/// (`/files/.tus/<id>`), so `.tus` is a reserved name: no upload can make it, no listing
/// shows it, no download reaches it, whether tus is on or not.
@Suite struct ReservedTusNameTests {
    static let sentence = "The name \".tus\" is reserved for resumable uploads (/files/.tus/)."

    static func rejection(_ body: () throws(HTTPError) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            guard case .badRequest(let message) = error else { return "\(error)" }
            return message
        }
    }

    @Test(arguments: [false, true])
    func theNamePolicyRefusesItEvenWithAllowHidden(allowHidden: Bool) {
        let policy = FileNamePolicy(allowHidden: allowHidden)
        #expect(Self.rejection { () throws(HTTPError) in _ = try policy.storedName(from: ".tus") } == Self.sentence)
        #expect(Self.rejection { () throws(HTTPError) in _ = try policy.storedName(from: ".TUS") } == Self.sentence)
        #expect(
            Self.rejection { () throws(HTTPError) in _ = try policy.storagePath(fromRelative: ".tus/a.txt") } == Self.sentence)
        #expect(Self.rejection { () throws(HTTPError) in _ = try policy.storagePath(fromRelative: "a/.tus") } == Self.sentence)
        #expect(Self.rejection { () throws(HTTPError) in _ = try policy.storagePath(fromURLPath: "%2Etus/a") } == Self.sentence)
        #expect(Self.rejection { () throws(HTTPError) in _ = try policy.storagePath(fromURLPath: ".tus") } == Self.sentence)
        // Only the name itself: `.tusk` and `tus` are names like any other.
        #expect(Self.rejection { () throws(HTTPError) in _ = try policy.storedName(from: "tus") } == nil)
        #expect((Self.rejection { () throws(HTTPError) in _ = try policy.storedName(from: ".tusk") } == nil) == allowHidden)
    }

    @Test func uploadsCannotMakeIt() {
        let server = TusHandlerTests.Server { $0.allowHidden = true }
        let put = server.send(.put, "/files/.tus", body: Array("x".utf8))
        #expect(put.status == .badRequest)
        #expect(FiledropAppUploadTests.bodyText(put).contains(Self.sentence))
        #expect(server.send(.post, "/upload?name=.tus/a.txt", body: Array("x".utf8)).status == .badRequest)
        let form = FiledropAppUploadTests.multipart([("file", "a.txt", "x")])
        #expect(
            server.send(.post, "/upload?path=.tus", ["Content-Type": "multipart/form-data; boundary=XyZ"], body: form).status
                == .badRequest)
        let tus = server.create(
            length: 1,
            extra: [
                "Upload-Metadata": "filename " + Base64.encode("a".utf8)
                    + ",relativePath " + Base64.encode(".tus/a".utf8)
            ])
        #expect(tus.status == .badRequest)
        #expect(server.storage.files.isEmpty)
        // The same upload under a hidden name of its own is stored: allow-hidden is on.
        #expect(server.send(.put, "/files/.tusk", body: Array("x".utf8)).status == .created)
    }

    @Test func listingsNeverShowItAndTheTusURLsStayTus() {
        let server = TusHandlerTests.Server { $0.allowHidden = true }
        server.storage.state.withLock {
            $0.files[FiledropAppUploadTests.path(".tus")] = [1]
            $0.files[FiledropAppUploadTests.path(".hidden")] = [1]
        }
        let listing = FiledropAppUploadTests.bodyText(server.send(.get, "/files/?format=json"))
        #expect(listing.contains("\".hidden\""))
        #expect(!listing.contains("\".tus\""))
        #expect(server.send(.get, "/files/.tus").status == .badRequest)
        // `/files/.tus/` is tus's: without Tus-Resumable 412, with it an unknown id is 404.
        #expect(server.send(.head, "/files/.tus/").status == .preconditionFailed)
        #expect(server.send(.head, "/files/.tus/x", ["Tus-Resumable": "1.0.0"]).status == .notFound)
    }
}
