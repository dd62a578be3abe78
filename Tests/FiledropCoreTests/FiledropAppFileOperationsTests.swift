import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The page's file operations, in memory: rename (WebDAV MOVE), new folder (MKCOL) and the
/// multi-select ZIP, each allowed, refused by the mode, by the Origin check and by the name
/// rules, and never losing or replacing a file.
@Suite struct FiledropAppFileOperationsTests {
    static func path(_ text: String) -> StoragePath {
        StoragePath(checkedComponents: text.split(separator: "/").map(String.init))
    }

    /// `a.txt`, `b.txt` and `sub/c.txt` stored; `configure` on top of allow-delete.
    static func server(_ configure: (inout Configuration) -> Void = { _ in }) -> InMemoryServer {
        var configuration = Configuration()
        configuration.allowDelete = true
        configure(&configuration)
        let server = InMemoryServer(configuration: configuration, compressor: FileDownloadTests.FakeCompressor())
        server.storage.state.withLock { state in
            state.files[path("a.txt")] = Array("alpha".utf8)
            state.files[path("b.txt")] = Array("bravo".utf8)
            state.directories.insert(path("sub"))
            state.files[path("sub/c.txt")] = Array("charlie".utf8)
        }
        return server
    }

    static let untouched: [StoragePath: [UInt8]] = [
        path("a.txt"): Array("alpha".utf8), path("b.txt"): Array("bravo".utf8), path("sub/c.txt"): Array("charlie".utf8),
    ]

    static func move(_ server: InMemoryServer, _ target: String, to destination: String?, _ extra: HTTPHeaders = [:]) -> Response
    {
        var headers = extra
        if let destination { headers.add(name: "Destination", value: destination) }
        return server.send(InMemoryServer.head(.move, target, headers))
    }

    // MARK: - MOVE

    @Test func renamesAFile() {
        let server = Self.server()
        let response = Self.move(server, "/files/a.txt", to: "/files/sub/new%20name.txt")
        #expect(response.status == .created)
        #expect(response.headers["location"] == "/files/sub/new%20name.txt")
        #expect(server.storage.files[Self.path("sub/new name.txt")] == Array("alpha".utf8))
        #expect(server.storage.files[Self.path("a.txt")] == nil)
    }

    @Test func renamesAFolderWithWhatIsInIt() {
        let server = Self.server()
        let response = Self.move(server, "/files/sub/", to: "http://localhost/files/renamed/")
        #expect(response.status == .created)
        #expect(response.headers["location"] == "/files/renamed/")
        #expect(server.storage.files[Self.path("renamed/c.txt")] == Array("charlie".utf8))
        #expect(server.storage.directories.contains(Self.path("renamed")))
        #expect(!server.storage.directories.contains(Self.path("sub")))
    }

    /// RFC 4918 §9.9.4 412, whatever `Overwrite` says: filedrop never replaces by renaming.
    @Test(arguments: [nil, "T", "F"])
    func neverReplaces(overwrite: String?) {
        let server = Self.server()
        let extra: HTTPHeaders = overwrite.map { ["Overwrite": $0] } ?? [:]
        let response = Self.move(server, "/files/a.txt", to: "/files/b.txt", extra)
        #expect(response.status == .preconditionFailed)
        #expect(InMemoryServer.text(response).contains("\"/b.txt\" already exists"))
        #expect(server.storage.files == Self.untouched)
    }

    @Test(arguments: [
        ("/files/../x.txt", HTTPStatus.badRequest), ("/files/%2E%2E/x.txt", .badRequest), ("/files/sub%2Fx.txt", .badRequest),
        ("/files/.tus/x", .badRequest), ("/files/.hidden", .badRequest), ("/files/.filedrop-tmp-1", .badRequest),
        ("/etc/passwd", .badRequest), ("/files/", .badRequest), ("/files/x?y", .badRequest),
        ("http://evil.example/files/x.txt", .badGateway), ("https://localhost:8443/files/x.txt", .badGateway),
        ("/files/a.txt", .forbidden), ("/files/missing/x.txt", .conflict), ("/files/b.txt/x.txt", .conflict),
    ])
    func refusesBadDestinations(destination: String, status: HTTPStatus) {
        let server = Self.server()
        let response = Self.move(server, "/files/a.txt", to: destination)
        #expect(response.status == status)
        #expect(!InMemoryServer.text(response).isEmpty)
        #expect(server.storage.files == Self.untouched)
    }

    @Test func refusesWhatCannotBeRenamed() {
        let server = Self.server()
        #expect(Self.move(server, "/files/a.txt", to: nil).status == .badRequest)
        #expect(Self.move(server, "/files/nothing.txt", to: "/files/x.txt").status == .notFound)
        #expect(Self.move(server, "/files/sub/", to: "/files/sub/deeper/").status == .conflict)
        #expect(Self.move(server, "/files/", to: "/files/x/").status == .forbidden)
        #expect(Self.move(server, "/files/..%2Fa.txt", to: "/files/x.txt").status == .badRequest)
        #expect(server.storage.files == Self.untouched)
    }

    @Test func needsAllowDeleteAndAWritableServer() {
        let off = Self.server { $0.allowDelete = false }
        let refused = Self.move(off, "/files/a.txt", to: "/files/x.txt")
        #expect(refused.status == .methodNotAllowed)
        #expect(refused.headers["allow"] == "GET, HEAD, PUT")
        let readOnly = Self.server { $0.access = .readOnly }
        #expect(Self.move(readOnly, "/files/a.txt", to: "/files/x.txt").status == .forbidden)
        #expect(off.storage.files == Self.untouched && readOnly.storage.files == Self.untouched)
    }

    @Test func guardedAsDeletesAre() {
        let drop = Self.server {
            $0.access = .drop
            $0.passwordHash = "$6$x$y"
        }
        #expect(Self.move(drop, "/files/a.txt", to: "/files/x.txt").status == .unauthorized)
        let open = Self.server()
        for crossSite: HTTPHeaders in [["Sec-Fetch-Site": "cross-site"], ["Origin": "http://evil.example"]] {
            #expect(Self.move(open, "/files/a.txt", to: "/files/x.txt", crossSite).status == .forbidden)
        }
        #expect(drop.storage.files == Self.untouched && open.storage.files == Self.untouched)
    }

    @Test func refusalsComeAsJSONToo() {
        let server = Self.server()
        let response = Self.move(server, "/files/a.txt", to: "/files/b.txt", ["Accept": "application/json"])
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(InMemoryServer.text(response).contains("\"status\":412"))
    }

    // MARK: - MKCOL

    static func makeFolder(_ server: InMemoryServer, _ target: String, _ extra: HTTPHeaders = [:]) -> Response {
        server.send(InMemoryServer.head(.mkcol, target, extra))
    }

    @Test func makesAFolder() {
        let server = Self.server { $0.allowDelete = false }
        let response = Self.makeFolder(server, "/files/sub/n%C3%A9w/")
        #expect(response.status == .created)
        #expect(response.headers["location"] == "/files/sub/n%C3%A9w/")
        #expect(server.storage.directories.contains(Self.path("sub/néw")))
    }

    @Test func folderRefusals() {
        let server = Self.server()
        let exists = Self.makeFolder(server, "/files/a.txt")
        #expect(exists.status == .methodNotAllowed)
        #expect(exists.headers["allow"] == "GET, HEAD, PUT")
        #expect(InMemoryServer.text(exists).contains("\"a.txt\" already exists"))
        #expect(Self.makeFolder(server, "/files/sub/").status == .methodNotAllowed)
        #expect(Self.makeFolder(server, "/files/").status == .methodNotAllowed)
        #expect(Self.makeFolder(server, "/files/no/such/").status == .conflict)
        #expect(Self.makeFolder(server, "/files/a.txt/x/").status == .conflict)
        #expect(Self.makeFolder(server, "/files/.hidden/").status == .badRequest)
        #expect(Self.makeFolder(server, "/files/.tus/").status == .badRequest)
        #expect(Self.makeFolder(server, "/files/%2E%2E/").status == .badRequest)
        #expect(
            server.send(InMemoryServer.head(.mkcol, "/files/x/", ["Content-Length": "2"]), body: Array("{}".utf8)).status
                == .unsupportedMediaType)
        #expect(server.storage.directories == [.root, Self.path("sub")])
    }

    /// Allowed where uploads are, except drop mode: there its answer would tell which names exist.
    @Test func foldersFollowTheMode() {
        let readOnly = Self.server { $0.access = .readOnly }
        #expect(Self.makeFolder(readOnly, "/files/x/").status == .forbidden)
        let drop = Self.server {
            $0.access = .drop
            $0.passwordHash = "$6$x$y"
        }
        #expect(Self.makeFolder(drop, "/files/x/").status == .unauthorized)
        let open = Self.server()
        #expect(Self.makeFolder(open, "/files/x/", ["Sec-Fetch-Site": "cross-site"]).status == .forbidden)
        for server in [readOnly, drop, open] {
            #expect(server.storage.directories == [.root, Self.path("sub")])
        }
    }

    // MARK: - Multi-select ZIP

    @Test func zipsTheSelection() {
        let server = Self.server()
        let response = server.send(InMemoryServer.head(.get, "/files/?zip&select=a.txt&select=sub/"))
        #expect(response.status == .ok)
        #expect(response.headers["content-type"] == "application/zip")
        #expect(response.headers["content-disposition"]?.contains("filedrop.zip") == true)
    }

    @Test(arguments: [
        ("select=nothing.txt", HTTPStatus.notFound), ("select=a.txt&select=gone/", .notFound), ("select=", .badRequest),
        ("select=sub/c.txt", .badRequest), ("select=..", .badRequest), ("select=.tus", .badRequest),
        ("select=.hidden", .badRequest), ("select=%2E%2E%2Fa.txt", .badRequest),
    ])
    func refusesBadSelections(query: String, status: HTTPStatus) {
        let response = Self.server().send(InMemoryServer.head(.get, "/files/?zip&" + query))
        #expect(response.status == status)
        #expect(response.headers["content-type"] != "application/zip")
        #expect(!InMemoryServer.text(response).isEmpty)
    }

    @Test func selectionIsReadAsTheFolderIs() {
        let drop = Self.server {
            $0.access = .drop
            $0.passwordHash = "$6$x$y"
        }
        #expect(drop.send(InMemoryServer.head(.get, "/files/?zip&select=a.txt")).status == .unauthorized)
        let noZlib = InMemoryServer(configuration: Configuration())
        #expect(noZlib.send(InMemoryServer.head(.get, "/files/?zip&select=a.txt")).status == .notImplemented)
    }

    // MARK: - config.json

    @Test(arguments: [(false, AccessMode.open, false), (true, .open, true), (true, .readOnly, false)])
    func configSaysWhetherRenamesAreAllowed(allowDelete: Bool, mode: AccessMode, allowRename: Bool) {
        let server = Self.server {
            $0.allowDelete = allowDelete
            $0.access = mode
        }
        let text = InMemoryServer.text(server.send(InMemoryServer.head(.get, "/config.json")))
        #expect(text.contains("\"allowDelete\":\(allowDelete),\"allowRename\":\(allowRename),"))
    }
}
