import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// `Route`: every route, every method, and the odd paths (dot segments already removed by
/// `RequestHead`, percent escapes kept for `FileNamePolicy`, the tus URLs next to the files).
@Suite struct RouteTests {
    static func route(_ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders = [:], tus: Bool = true) -> Route {
        Route(RequestHead(method: method, target: target, version: .http1_1, headers: headers), servesTus: tus)
    }

    static func stored(_ urlPath: Substring, _ operation: StoredFileRoute.Operation, directory: Bool = false) -> Route {
        .storedFile(StoredFileRoute(urlPath: urlPath, isDirectoryURL: directory, operation: operation))
    }

    static let unknown = HTTPMethod.other("BREW")

    @Test(arguments: [
        ("/", Route.page(name: "index.html")),
        ("/index.html", .page(name: "index.html")),
        ("/app.js", .page(name: "app.js")),
        ("/style.css", .page(name: "style.css")),
        ("/a/b", .page(name: "a/b")),
        ("/%66iles/a", .page(name: "%66iles/a")),
        ("/config.json", .config),
        ("/qr.svg", .qrCode),
        ("/ca.crt", .trust(.certificate)),
        ("/ca.mobileconfig", .trust(.profile)),
        ("/trust", .trust(.page)),
        ("/config.json?x=1", .config),
        ("http://localhost:8080/trust?x", .trust(.page)),
    ])
    func readingRoutes(target: String, expected: Route) {
        #expect(Self.route(.get, target) == expected)
        #expect(Self.route(.head, target) == expected)
        for method in [HTTPMethod.post, .put, .delete, .options, .patch, Self.unknown] {
            #expect(Self.route(method, target) == .methodRefused(method, on: expected))
        }
        #expect(Route.methodRefusal(.post, on: expected) == .methodNotAllowed(allowed: [.get, .head]))
        #expect(Route.methodRefusal(Self.unknown, on: expected).status == .notImplemented)
    }

    @Test(arguments: ["/upload", "/upload.html", "/upload?name=a.txt"])
    func theUploadFormTakesPostOnly(target: String) {
        #expect(Self.route(.post, target) == .uploadForm)
        for method in [HTTPMethod.get, .head, .put, .delete, .options, .patch] {
            #expect(Self.route(method, target) == .methodRefused(method, on: .uploadForm))
            #expect(Route.methodRefusal(method, on: .uploadForm) == .methodNotAllowed(allowed: [.post]))
        }
        #expect(Route.methodRefusal(Self.unknown, on: .uploadForm).status == .notImplemented)
    }

    @Test func filesWithoutTheSlashRedirectsEveryMethodButTusCreation() {
        for method in [HTTPMethod.get, .head, .put, .delete, .patch, Self.unknown] {
            #expect(Self.route(method, "/files") == .filesRedirect)
        }
        #expect(Self.route(.options, "/files") == .tus(.options))
        #expect(Self.route(.post, "/files") == .tus(.creation))
        #expect(Self.route(.options, "/files", tus: false) == .filesRedirect)
        #expect(Self.route(.post, "/files", tus: false) == .filesRedirect)
    }

    @Test func storedFileOperations() {
        #expect(Self.route(.get, "/files/a.txt") == Self.stored("a.txt", .download(attachment: false)))
        #expect(Self.route(.head, "/files/a.txt?download") == Self.stored("a.txt", .download(attachment: true)))
        #expect(Self.route(.get, "/files/") == Self.stored("", .listing(zip: false), directory: true))
        #expect(Self.route(.get, "/files/d/?zip") == Self.stored("d/", .listing(zip: true), directory: true))
        #expect(Self.route(.get, "/files/d/?format=json") == Self.stored("d/", .listing(zip: false), directory: true))
        #expect(Self.route(.put, "/files/d/a.txt") == Self.stored("d/a.txt", .upload))
        #expect(
            Self.route(.put, "/files/d/") == Self.stored("d/", .methodRefused(.put, allowed: [.get, .head]), directory: true))
        #expect(Self.route(.delete, "/files/a.txt") == Self.stored("a.txt", .delete))
        #expect(Self.route(.options, "/files/a.txt") == Self.stored("a.txt", .options))
        for method in [HTTPMethod.post, .patch, Self.unknown] {
            #expect(
                Self.route(method, "/files/a.txt") == Self.stored("a.txt", .methodRefused(method, allowed: [.get, .head, .put])))
        }
    }

    /// The file operations: WebDAV MOVE and MKCOL, and the multi-select ZIP (every `select`
    /// value, decoded, in order; `?zip` alone stays the whole folder).
    @Test func fileOperations() {
        #expect(
            Self.route(.move, "/files/a.txt", ["Destination": "/files/b%20c.txt"])
                == Self.stored("a.txt", .move(destination: "/files/b%20c.txt")))
        #expect(Self.route(.move, "/files/d/") == Self.stored("d/", .move(destination: nil), directory: true))
        #expect(Self.route(.mkcol, "/files/new/") == Self.stored("new/", .makeFolder(hasBody: false), directory: true))
        #expect(Self.route(.mkcol, "/files/new", ["Content-Length": "0"]) == Self.stored("new", .makeFolder(hasBody: false)))
        #expect(Self.route(.mkcol, "/files/new", ["Content-Length": "3"]) == Self.stored("new", .makeFolder(hasBody: true)))
        #expect(
            Self.route(.mkcol, "/files/new", ["Transfer-Encoding": "chunked"]) == Self.stored("new", .makeFolder(hasBody: true)))
        #expect(
            Self.route(.get, "/files/d/?zip&select=a.txt&select=sub%2F&select=b+c")
                == Self.stored("d/", .zipSelection(names: ["a.txt", "sub/", "b c"]), directory: true))
        #expect(Self.route(.get, "/files/d/?select=a.txt") == Self.stored("d/", .listing(zip: false), directory: true))
        #expect(Self.route(.get, "/files/a.txt?zip&select=a") == Self.stored("a.txt", .download(attachment: false)))
        #expect(HTTPMethod(token: "MOVE") == .move && HTTPMethod.move.description == "MOVE")
        #expect(HTTPMethod(token: "MKCOL") == .mkcol && HTTPMethod.mkcol.description == "MKCOL")
    }

    @Test func withoutTusTheFilesRouteTakesEverything() {
        #expect(Self.route(.options, "/files/", tus: false) == Self.stored("", .options, directory: true))
        #expect(
            Self.route(.post, "/files/", tus: false)
                == Self.stored("", .methodRefused(.post, allowed: [.get, .head, .put]), directory: true))
        #expect(Self.route(.head, "/files/.tus/abc", tus: false) == Self.stored(".tus/abc", .download(attachment: false)))
    }

    @Test func tusCreationIsOptionsOrPostOnTheFilesRoot() {
        #expect(Self.route(.options, "/files/") == .tus(.options))
        #expect(Self.route(.post, "/files/") == .tus(.creation))
        #expect(Self.route(.get, "/files/") == Self.stored("", .listing(zip: false), directory: true))
        #expect(Self.route(.put, "/files/") == Self.stored("", .methodRefused(.put, allowed: [.get, .head]), directory: true))
        // protocol.md "X-HTTP-Method-Override": the method meant, not the one sent.
        #expect(Self.route(.post, "/files/", ["X-HTTP-Method-Override": "OPTIONS"]) == .tus(.options))
        #expect(Self.route(.get, "/files/", ["X-HTTP-Method-Override": "POST"]) == .tus(.creation))
        #expect(
            Self.route(.post, "/files/", ["X-HTTP-Method-Override": "PATCH"])
                == Self.stored("", .methodRefused(.post, allowed: [.get, .head, .put]), directory: true))
    }

    @Test func tusUploadsByTheMethodMeant() {
        #expect(Self.route(.head, "/files/.tus/abc") == .tus(.upload(id: "abc", .status)))
        #expect(Self.route(.patch, "/files/.tus/abc") == .tus(.upload(id: "abc", .append)))
        #expect(Self.route(.delete, "/files/.tus/abc") == .tus(.upload(id: "abc", .terminate)))
        #expect(Self.route(.options, "/files/.tus/abc") == .tus(.options))
        #expect(Self.route(.post, "/files/.tus/abc", ["X-HTTP-Method-Override": "PATCH"]) == .tus(.upload(id: "abc", .append)))
        #expect(
            Self.route(.post, "/files/.tus/abc", ["X-HTTP-Method-Override": "DELETE"]) == .tus(.upload(id: "abc", .terminate)))
        for method in [HTTPMethod.get, .post, .put, Self.unknown] {
            #expect(Self.route(method, "/files/.tus/abc") == .tus(.upload(id: "abc", .methodRefused(method))))
        }
        // The id is checked by TusHandler (404), after the version (412).
        #expect(Self.route(.head, "/files/.tus/") == .tus(.upload(id: "", .status)))
        #expect(Self.route(.head, "/files/.tus/abc/x") == .tus(.upload(id: "abc/x", .status)))
        #expect(Self.route(.head, "/files/.tus/%41") == .tus(.upload(id: "%41", .status)))
    }

    @Test func hiddenAndReservedNamesAreStoredFilesForTheNamePolicyToJudge() {
        #expect(Self.route(.get, "/files/.hidden") == Self.stored(".hidden", .download(attachment: false)))
        #expect(Self.route(.get, "/files/.tus") == Self.stored(".tus", .download(attachment: false)))
        #expect(Self.route(.get, "/files/.tusx/a") == Self.stored(".tusx/a", .download(attachment: false)))
        #expect(Self.route(.head, "/files/%2Etus/abc") == Self.stored("%2Etus/abc", .download(attachment: false)))
        #expect(Self.route(.head, "/files/.TUS/abc") == Self.stored(".TUS/abc", .download(attachment: false)))
        #expect(Self.route(.get, "/files/a/.tus/b") == Self.stored("a/.tus/b", .download(attachment: false)))
    }

    @Test func percentEscapesAndDotSegments() {
        #expect(Self.route(.get, "/files/a%20b.txt") == Self.stored("a%20b.txt", .download(attachment: false)))
        #expect(Self.route(.get, "/files/%C3%A9/") == Self.stored("%C3%A9/", .listing(zip: false), directory: true))
        #expect(Self.route(.get, "/files/é.txt") == Self.stored("é.txt", .download(attachment: false)))
        // RFC 3986 §5.2.4 (`DotSegments`): `.` segments are gone before routing, `..` stays for the policy.
        #expect(Self.route(.get, "/files/./a:b.txt") == Self.stored("a:b.txt", .download(attachment: false)))
        #expect(Self.route(.get, "/files/a/.") == Self.stored("a/", .listing(zip: false), directory: true))
        #expect(Self.route(.get, "/./files/x") == Self.stored("x", .download(attachment: false)))
        #expect(Self.route(.head, "/files/./.tus/./abc") == .tus(.upload(id: "abc", .status)))
        #expect(Self.route(.get, "/files/../x") == Self.stored("../x", .download(attachment: false)))
        #expect(Self.route(.get, "/./config.json") == .config)
        #expect(Self.route(.get, "/files/%2e/x") == Self.stored("%2e/x", .download(attachment: false)))
    }

    @Test func whatIsNeededBeforeTrust() {
        for target in ["/ca.crt", "/ca.mobileconfig", "/trust", "/style.css"] {
            #expect(Self.route(.get, target).isNeededBeforeTrust, "\(target)")
            #expect(Self.route(.post, target).isNeededBeforeTrust, "\(target)")
        }
        for target in ["/", "/app.js", "/config.json", "/qr.svg", "/files/", "/files/style.css", "/upload", "/files/.tus/a"] {
            #expect(!Self.route(.get, target).isNeededBeforeTrust, "\(target)")
        }
    }
}
