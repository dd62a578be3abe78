import Synchronization
import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// `/healthz` through the app, in memory: open to a balancer in every mode, 503 with a sentence
/// while uploads cannot be created, and one probe per `SaveDirectoryHealth.maxAge`.
@Suite struct HealthRouteTests {
    static let lan = RequestContext(client: "192.168.1.20", wallClockSeconds: 0)

    static func server(_ storage: InMemoryStorage = InMemoryStorage(), _ configure: (inout Configuration) -> Void = { _ in })
        -> InMemoryServer
    {
        var configuration = Configuration()
        configuration.passwordHash = "$y$fake"
        configure(&configuration)
        let access = AccessControl(configuration: configuration, verifier: FakeVerifier(), now: { 0 })
        return InMemoryServer(configuration: configuration, storage: storage, access: access)
    }

    /// No password in any mode (a balancer has none), and the probe leaves nothing behind.
    @Test(arguments: AccessMode.allCases)
    func answersOkWithoutPassword(mode: AccessMode) throws {
        let server = Self.server { $0.access = mode }
        let response = try #require(server.answer(InMemoryServer.head(.get, "/healthz"), context: Self.lan))
        #expect(response.status.code == 200)
        #expect(response.headers[.cacheControl] == "no-store")
        guard case .bytes(let body) = response.body else {
            Issue.record("no body")
            return
        }
        #expect(body == Array("ok\n".utf8))
        #expect(server.answer(InMemoryServer.head(.head, "/healthz"), context: Self.lan)?.status.code == 200)
        #expect(server.storage.state.withLock { $0.pendingUploads } == 0)
        #expect(server.storage.state.withLock { $0.files.isEmpty })
    }

    @Test func refusesReadOnlySaveDirectoryWithASentence() throws {
        let storage = InMemoryStorage()
        storage.state.withLock { $0.createFailure = .readOnly }
        let server = Self.server(storage)
        let response = try #require(
            server.answer(InMemoryServer.head(.get, "/healthz", [.accept: "text/plain"]), context: Self.lan))
        #expect(response.status.code == 503)
        guard case .bytes(let body) = response.body else {
            Issue.record("no body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self).contains("The save directory takes no uploads now"))
        #expect(String(decoding: body, as: UTF8.self).contains("read-only"))
    }

    @Test func otherMethodsAreRefused() {
        let server = Self.server()
        #expect(server.answer(InMemoryServer.head(.post, "/healthz"), context: Self.lan)?.status.code == 405)
        #expect(
            Route(InMemoryServer.head(.get, "/healthz"), servesTus: true).requestKind(InMemoryServer.head(.get, "/healthz"))
                == .health)
    }

    /// The plain port with HTTPS on answers it too: a balancer may check either port.
    @Test func plainPortAnswersIt() {
        let fixture = HTTPSFixture()
        #expect(fixture.answer(HTTPSFixture.head(.get, "/healthz"))?.status.code == 200)
    }

    /// A reading is reused for `maxAge`, then probed again: a failure clears once it is gone.
    @Test func probesOncePerMaxAge() {
        let storage = InMemoryStorage()
        let clock = Mutex<UInt64>(0)
        let store = UploadStore(
            storage: storage, policy: StoragePolicy(configuration: Configuration()),
            monitor: UploadMonitor(log: NoLog(), now: { 0 }))
        let health = SaveDirectoryHealth(store: store, storage: storage, now: { clock.withLock { $0 } })
        storage.state.withLock { $0.createFailure = .permissionDenied }
        #expect(health.current() == StorageError.permissionDenied.httpError)
        storage.state.withLock { $0.createFailure = nil }
        clock.withLock { $0 = SaveDirectoryHealth.maxAge - 1 }
        #expect(health.current() == StorageError.permissionDenied.httpError)
        #expect(storage.state.withLock { $0.createAttempts } == 1)
        clock.withLock { $0 = SaveDirectoryHealth.maxAge }
        #expect(health.current() == nil)
        #expect(storage.state.withLock { $0.createAttempts } == 2)
    }
}
