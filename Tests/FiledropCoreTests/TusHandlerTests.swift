import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The tus protocol against in-memory storage and a hand-moved clock: creation, offsets,
/// the write lock, checksums, termination, expiry, limits one over, recovery after restart.
@Suite struct TusHandlerTests {
    final class Server {
        let storage = InMemoryStorage()
        let area: InMemoryPartialUploadArea
        let clock = ManualClock()
        var uploads: TusUploads
        var app: FiledropApp
        let configure: (inout Configuration) -> Void
        let log: any LogSink

        init(log: any LogSink = NoLog(), _ configure: @escaping (inout Configuration) -> Void = { _ in }) {
            self.configure = configure
            self.log = log
            let clock = clock
            area = InMemoryPartialUploadArea(storage: storage, clock: { clock.now })
            uploads = TusUploads(area: area, digests: ByteSumDigests(), clock: { clock.now })
            app = Self.makeApp(storage: storage, uploads: uploads, log: log, configure)
        }

        static func makeApp(
            storage: InMemoryStorage, uploads: TusUploads, log: any LogSink,
            _ configure: (inout Configuration) -> Void
        ) -> FiledropApp {
            var configuration = Configuration()
            configuration.fsync = false
            configure(&configuration)
            return InMemoryServer(configuration: configuration, storage: storage, log: log, tusUploads: uploads).app
        }

        /// A daemon restart: everything in memory is rebuilt from the area. `publishing`:
        /// what the daemon does before it serves (off for tests of HEAD's own publish).
        func restart(publishing: Bool = true) {
            let clock = clock
            uploads = TusUploads(area: area, digests: ByteSumDigests(), clock: { clock.now })
            app = Self.makeApp(storage: storage, uploads: uploads, log: log, configure)
            if publishing { _ = app.publishCompleteTusUploads() }
        }

        func route(
            _ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders, client: String = "10.0.0.1",
            host: String = "localhost", secure: Bool = false
        ) -> RouteDecision {
            var all: HTTPHeaders = ["Host": host]
            for (name, value) in headers { all.add(name: name, value: value) }
            return app.route(
                RequestHead(method: method, target: target, version: .http1_1, headers: all),
                context: RequestContext(client: client, wallClockSeconds: clock.now, isSecure: secure))
        }

        func send(
            _ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders = [:], body: [UInt8] = [], pieces: Int = 1,
            client: String = "10.0.0.1", host: String = "localhost", secure: Bool = false
        ) -> Response {
            var headers = headers
            if !body.isEmpty { headers.add(name: "Content-Length", value: String(body.count)) }
            return RequestDriver.send(
                route(method, target, headers, client: client, host: host, secure: secure), body: body, pieces: pieces)
        }

        func create(length: UInt64?, name: String = "a.bin", client: String = "10.0.0.1", extra: HTTPHeaders = [:]) -> Response {
            var headers: HTTPHeaders = ["Tus-Resumable": "1.0.0"]
            if !extra.contains("upload-metadata") {
                headers.add(name: "Upload-Metadata", value: "filename " + Base64.encode(name.utf8))
            }
            if let length {
                headers.add(name: "Upload-Length", value: String(length))
            } else {
                headers.add(name: "Upload-Defer-Length", value: "1")
            }
            for (key, value) in extra { headers.add(name: key, value: value) }
            return send(.post, "/files/", headers, client: client)
        }

        func patch(_ location: String, offset: UInt64, _ body: [UInt8], pieces: Int = 1, extra: HTTPHeaders = [:]) -> Response {
            var headers: HTTPHeaders = [
                "Tus-Resumable": "1.0.0", "Upload-Offset": String(offset),
                "Content-Type": "application/offset+octet-stream",
            ]
            for (key, value) in extra { headers.add(name: key, value: value) }
            return send(.patch, location, headers, body: body, pieces: pieces)
        }

        func offset(_ location: String) -> String? {
            let response = send(.head, location, ["Tus-Resumable": "1.0.0"])
            return response.status == .ok ? response.headers["upload-offset"] : nil
        }
    }

    static let content = Array("The quick brown fox jumps over the lazy dog".utf8)
    static func path(_ name: String) -> StoragePath { StoragePath(checkedComponents: [name]) }

    @Test(arguments: [1, 3, 43])
    func uploadInTwoPatchesWhateverTheSplit(pieces: Int) throws {
        let server = Server()
        let created = server.create(length: UInt64(Self.content.count), name: "fox.txt")
        #expect(created.status == .created)
        let location = try #require(created.headers["location"])
        #expect(location.hasPrefix("http://localhost/files/.tus/"))
        #expect(server.patch(location, offset: 0, Array(Self.content[..<20]), pieces: pieces).headers["upload-offset"] == "20")
        #expect(server.storage.files.isEmpty, "invisible until the last byte")
        let last = server.patch(location, offset: 20, Array(Self.content[20...]), pieces: pieces)
        #expect(last.status == .noContent)
        #expect(last.headers["upload-offset"] == String(Self.content.count))
        #expect(server.storage.files[Self.path("fox.txt")] == Self.content)
        #expect(server.area.ids().isEmpty)
        #expect(server.offset(location) == String(Self.content.count), "a lost last response can be asked again")
    }

    /// Absolute, on the scheme and authority the request came to (aiotus cannot resolve a
    /// relative Location), with and without a first chunk in the creation.
    @Test(arguments: [
        (false, "192.168.1.5:8080", "http://192.168.1.5:8080"), (true, "[fe80::1]:8443", "https://[fe80::1]:8443"),
        (true, "192.168.1.5:8443", "https://192.168.1.5:8443"),
    ])
    func locationIsAnAbsoluteURLOnTheRequestsOrigin(secure: Bool, host: String, origin: String) throws {
        let server = Server()
        let tus: HTTPHeaders = [
            "Tus-Resumable": "1.0.0", "Upload-Length": "5", "Upload-Metadata": "filename " + Base64.encode("a.bin".utf8),
        ]
        let created = server.send(.post, "/files/", tus, host: host, secure: secure)
        let location = try #require(created.headers["location"])
        #expect(location.hasPrefix(origin + "/files/.tus/"), "\(location)")
        var withBody = tus
        withBody.add(name: "Content-Type", value: "application/offset+octet-stream")
        let createdWithBody = server.send(.post, "/files/", withBody, body: Array("12".utf8), host: host, secure: secure)
        #expect(createdWithBody.status == .created)
        #expect(createdWithBody.headers["location"]?.hasPrefix(origin + "/files/.tus/") == true)
        #expect(
            server.patch(location, offset: 0, Array("12345".utf8)).status == .noContent, "the absolute URL addresses the upload")
    }

    @Test func wrongOffsetIs409AndChangesNothing() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        #expect(server.patch(location, offset: 0, Array("12345".utf8)).status == .noContent)
        #expect(server.patch(location, offset: 4, Array("56789".utf8)).status == .conflict)
        #expect(server.patch(location, offset: 6, Array("6789".utf8)).status == .conflict)
        #expect(server.offset(location) == "5")
    }

    @Test(arguments: [nil, "0.2.2", "1.0"])
    func missingOrOtherVersionIs412(version: String?) {
        let server = Server()
        var headers: HTTPHeaders = ["Upload-Length": "5"]
        if let version { headers.add(name: "Tus-Resumable", value: version) }
        let response = server.send(.post, "/files/", headers)
        #expect(response.status == .preconditionFailed)
        #expect(response.headers["tus-version"] == "1.0.0")
        #expect(server.uploads.count == 0)
    }

    @Test func optionsNeedsNoVersionAndAdvertisesExtensions() {
        let server = Server { $0.maxUploadSize = 1000 }
        let response = server.send(.options, "/files/")
        #expect(response.status == .noContent)
        #expect(response.headers["tus-max-size"] == "1000")
        #expect(response.headers["tus-checksum-algorithm"] == "sum8")
        #expect(response.headers["tus-extension"]?.contains("creation-defer-length") == true)
    }

    @Test func secondPatchWhileOneWritesIsLockedUntilTheFirstGoesQuiet() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        let patchHeaders: HTTPHeaders = [
            "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream",
            "Content-Length": "10",
        ]
        // The partial file opens on a worker first: run that inline.
        guard case .readBody(let first) = server.route(.patch, location, patchHeaders).resolvedInline() else {
            Issue.record("the first PATCH was not accepted")
            return
        }
        try Array("123".utf8).withUnsafeBytes { try first.consume($0) }
        #expect(server.patch(location, offset: 3, Array("4567890".utf8)).status.code == 423)
        // The first client's WiFi dropped: after staleWriterSeconds of silence a new PATCH wins.
        server.clock.advance(by: server.uploads.staleWriterSeconds)
        #expect(server.offset(location) == "3")
        #expect(server.patch(location, offset: 3, Array("4567890".utf8)).status == .noContent)
        #expect(throws: HTTPError.self) { try Array("x".utf8).withUnsafeBytes { try first.consume($0) } }
        first.abort()
        #expect(server.storage.files[Self.path("a.bin")] == Array("1234567890".utf8))
    }

    @Test func checksumMismatchIs460AndTheChunkIsDropped() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        let chunk = Array("12345".utf8)
        let bad = server.patch(location, offset: 0, chunk, extra: ["Upload-Checksum": ByteSumDigests.header(Array("x".utf8))])
        #expect(bad.status.code == 460)
        #expect(server.offset(location) == "0")
        #expect(server.patch(location, offset: 0, chunk, extra: ["Upload-Checksum": "sha3 AA=="]).status == .badRequest)
        #expect(
            server.patch(location, offset: 0, chunk, extra: ["Upload-Checksum": ByteSumDigests.header(chunk)]).status
                == .noContent)
        #expect(server.offset(location) == "5")
        #expect(server.area.bytes(try #require(server.area.ids().first)) == chunk)
    }

    @Test func abortedPatchKeepsItsBytesUnlessChecksummed() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        for (checksum, expected) in [(true, "0"), (false, "4")] {
            var headers: HTTPHeaders = [
                "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream",
                "Content-Length": "10",
            ]
            if checksum { headers.add(name: "Upload-Checksum", value: ByteSumDigests.header(Array("1234567890".utf8))) }
            if !checksum, server.offset(location) != "0" { return }
            guard case .readBody(let consumer) = server.route(.patch, location, headers).resolvedInline() else {
                Issue.record("PATCH refused")
                return
            }
            try Array("1234".utf8).withUnsafeBytes { try consumer.consume($0) }
            consumer.abort()
            #expect(server.offset(location) == expected)
        }
    }

    @Test func deferredLengthArrivesWithALaterPatch() throws {
        let server = Server()
        let location = try #require(server.create(length: nil, name: "s.txt").headers["location"])
        let status = server.send(.head, location, ["Tus-Resumable": "1.0.0"])
        #expect(status.headers["upload-defer-length"] == "1")
        #expect(status.headers["upload-length"] == nil)
        #expect(server.patch(location, offset: 0, Array("hello".utf8)).status == .noContent)
        #expect(server.patch(location, offset: 5, Array(" world".utf8), extra: ["Upload-Length": "11"]).status == .noContent)
        #expect(server.storage.files[Self.path("s.txt")] == Array("hello world".utf8))
    }

    @Test func lengthCannotChangeOnceKnown() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        #expect(server.patch(location, offset: 0, Array("1".utf8), extra: ["Upload-Length": "11"]).status == .badRequest)
    }

    @Test func creationWithUpload() throws {
        let server = Server()
        let response = server.send(
            .post, "/files/",
            [
                "Tus-Resumable": "1.0.0", "Upload-Length": "11",
                "Content-Type": "application/offset+octet-stream",
            ], body: Array("hello".utf8))
        #expect(response.status == .created)
        #expect(response.headers["upload-offset"] == "5")
        let location = try #require(response.headers["location"])
        #expect(server.patch(location, offset: 5, Array(" world".utf8)).status == .noContent)
        #expect(server.storage.files[Self.path("upload")] == Array("hello world".utf8))
    }

    @Test func terminationRemovesEverything() throws {
        let server = Server()
        let location = try #require(server.create(length: 10).headers["location"])
        #expect(server.patch(location, offset: 0, Array("123".utf8)).status == .noContent)
        #expect(server.send(.delete, location, ["Tus-Resumable": "1.0.0"]).status == .noContent)
        #expect(server.offset(location) == nil)
        #expect(server.patch(location, offset: 3, Array("4".utf8)).status == .notFound)
        #expect(server.send(.delete, location, ["Tus-Resumable": "1.0.0"]).status == .notFound)
        #expect(server.area.ids().isEmpty)
        #expect(server.storage.files.isEmpty)
    }

    @Test func idleUploadsExpireAndBusyOnesDoNot() throws {
        let server = Server()
        let idle = try #require(server.create(length: 10).headers["location"])
        let busy = try #require(server.create(length: 10, name: "b.bin").headers["location"])
        let day: Int64 = 24 * 3600
        server.clock.advance(by: day - 10)
        #expect(server.patch(busy, offset: 0, Array("1".utf8)).status == .noContent)
        server.clock.advance(by: 9)
        #expect(server.uploads.sweep(expiration: .seconds(day)) == 0)
        server.clock.advance(by: 1)
        #expect(server.uploads.sweep(expiration: .seconds(day)) == 1)
        #expect(server.offset(idle) == nil)
        #expect(server.offset(busy) == "1")
        #expect(server.area.ids().count == 1)
    }

    @Test func expiredUploadsAreDeletedOnAccessWithoutASweep() throws {
        let server = Server()
        let headed = try #require(server.create(length: 10).headers["location"])
        let patched = try #require(server.create(length: 10, name: "b.bin").headers["location"])
        let day: Int64 = 24 * 3600
        server.clock.advance(by: day - 1)
        #expect(server.offset(headed) == "0")
        #expect(server.area.ids().count == 2)
        server.clock.advance(by: 1)
        #expect(server.send(.head, headed, ["Tus-Resumable": "1.0.0"]).status == .notFound)
        #expect(server.area.ids().count == 1)
        #expect(server.patch(patched, offset: 0, Array("1".utf8)).status == .notFound)
        #expect(server.area.ids().isEmpty)
        #expect(server.uploads.count == 0)
        #expect(server.uploads.sweep(expiration: .seconds(day)) == 0)
    }

    @Test func uploadsSurviveARestart() throws {
        let server = Server()
        let location = try #require(server.create(length: 10, name: "r.txt").headers["location"])
        #expect(server.patch(location, offset: 0, Array("12345".utf8)).status == .noContent)
        server.restart()
        #expect(server.offset(location) == "5")
        #expect(
            server.send(.head, location, ["Tus-Resumable": "1.0.0"]).headers["upload-metadata"] == "filename "
                + Base64.encode("r.txt".utf8))
        #expect(server.patch(location, offset: 5, Array("67890".utf8)).status == .noContent)
        #expect(server.storage.files[Self.path("r.txt")] == Array("1234567890".utf8))
    }

    @Test func collisionPolicyAndNamePolicyApply() throws {
        let server = Server()
        for _ in 0..<2 {
            let location = try #require(server.create(length: 1, name: "same.txt").headers["location"])
            #expect(server.patch(location, offset: 0, Array("x".utf8)).status == .noContent)
        }
        #expect(server.storage.files.keys.map(\.description).sorted() == ["same (1).txt", "same.txt"])
        #expect(server.create(length: 1, name: ".hidden").status == .badRequest)
        let nested = server.create(length: 1, extra: ["Upload-Metadata": "relativePath " + Base64.encode("../x".utf8)])
        #expect(nested.status == .badRequest)
        let inFolder = try #require(
            server.create(length: 1, extra: ["Upload-Metadata": "relativePath " + Base64.encode("a/b/c.txt".utf8)]).headers[
                "location"])
        #expect(server.patch(inFolder, offset: 0, Array("x".utf8)).status == .noContent)
        #expect(server.storage.files[StoragePath(checkedComponents: ["a", "b", "c.txt"])] == Array("x".utf8))
    }

    // Limits, one over.

    @Test func maxUploadSizeOneByteOver() {
        let server = Server { $0.maxUploadSize = 100 }
        #expect(server.create(length: 100).status == .created)
        #expect(server.create(length: 101).status == .contentTooLarge)
    }

    @Test func bodyPastUploadLengthIsRefused() throws {
        let server = Server()
        let location = try #require(server.create(length: 4).headers["location"])
        #expect(server.patch(location, offset: 0, Array("12345".utf8)).status == .badRequest)
        #expect(server.offset(location) == "0")
    }

    @Test func perClientLimitOneOver() {
        let server = Server { $0.tusMaxPerClient = 2 }
        #expect(server.create(length: 1).status == .created)
        #expect(server.create(length: 1).status == .created)
        #expect(server.create(length: 1).status.code == 429)
        #expect(server.create(length: 1, client: "10.0.0.2").status == .created)
    }

    @Test func pendingLimitOneByteOver() throws {
        let server = Server { $0.tusMaxPending = 1000 }
        let location = try #require(server.create(length: nil).headers["location"])
        #expect(server.create(length: 999).status == .created)
        #expect(server.patch(location, offset: 0, Array("12".utf8)).status == .insufficientStorage)
        #expect(server.patch(location, offset: 0, Array("1".utf8)).status == .noContent)
        #expect(server.create(length: 1).status == .insufficientStorage)
    }

    @Test func readOnlyRefusesWrites() {
        let server = Server { $0.access = .readOnly }
        #expect(server.create(length: 1).status == .forbidden)
    }

    @Test func withoutTusTheRoutesAreUntouched() {
        let app = InMemoryServer().app
        let decision = app.route(
            RequestHead(
                method: .post, target: "/files/", version: .http1_1, headers: ["Tus-Resumable": "1.0.0", "Upload-Length": "1"]),
            context: RequestContext(client: "c", wallClockSeconds: 0))
        guard case .respond(let response) = decision else {
            Issue.record("expected a response")
            return
        }
        #expect(response.status == .methodNotAllowed)
    }
}
