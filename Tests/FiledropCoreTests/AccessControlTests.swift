import Synchronization
import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// A verifier whose password is "secret", counting how often it is asked (the real one is slow).
final class FakeVerifier: PasswordVerifier {
    let calls = Atomic<Int>(0)
    func verify(_ password: [UInt8]) -> Bool {
        calls.add(1, ordering: .relaxed)
        return password == Array("secret".utf8)
    }
}

/// A monotonic clock the test moves by hand.
final class AccessTestClock: Sendable {
    private let nanoseconds = Atomic<UInt64>(1_000_000_000)
    var now: UInt64 { nanoseconds.load(ordering: .relaxed) }
    func advance(seconds: UInt64) { nanoseconds.add(seconds * 1_000_000_000, ordering: .relaxed) }
}

/// The access rules through the app's one hook, in memory: modes, passwords, throttling,
/// caching, upload slots. The integration tests repeat the important ones over a socket.
@Suite struct AccessControlTests {
    static let good = "Basic " + "eDpzZWNyZXQ="  // x:secret
    static let bad = "Basic " + "eDp3cm9uZw=="  // x:wrong

    struct Fixture {
        let app: FiledropApp
        let storage: InMemoryStorage
        let verifier = FakeVerifier()
        let clock = AccessTestClock()

        init(log: any LogSink = NoLog(), _ configure: (inout Configuration) -> Void = { _ in }) {
            var configuration = Configuration()
            configuration.passwordHash = "$y$fake"
            configure(&configuration)
            let clock = self.clock
            let access = AccessControl(configuration: configuration, verifier: verifier, now: { clock.now })
            let server = InMemoryServer(configuration: configuration, log: log, access: access)
            app = server.app
            storage = server.storage
        }

        func status(_ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders = [:], body: String = "x") -> Int {
            FiledropAppUploadTests.send(app, FiledropAppUploadTests.head(method, target, headers), body: Array(body.utf8)).status
                .code
        }

        /// The route's decision alone: `.respond` means no body byte would be read.
        func decision(_ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders = [:]) -> RouteDecision {
            app.route(FiledropAppUploadTests.head(method, target, headers), context: InMemoryServer.context).resolvedInline()
        }
    }

    @Test func policyTable() {
        let drop = AccessPolicy(mode: .drop, hasPassword: true)
        #expect(drop.requirement(parsing: .get, "/") == .anyone)
        #expect(drop.requirement(parsing: .get, "/config.json") == .anyone)
        #expect(drop.requirement(parsing: .post, "/upload") == .anyone)
        #expect(drop.requirement(parsing: .put, "/files/a.txt") == .anyone)
        #expect(drop.requirement(parsing: .get, "/files/") == .password)
        #expect(drop.requirement(parsing: .get, "/files") == .password)
        #expect(drop.requirement(parsing: .head, "/files/a.txt") == .password)
        #expect(drop.requirement(parsing: .delete, "/files/a.txt") == .password)
        // tus: creation, offset, append and termination are parts of an upload.
        #expect(drop.requirement(parsing: .post, "/files/") == .anyone)
        #expect(drop.requirement(parsing: .head, "/files/.tus/abc") == .anyone)
        #expect(drop.requirement(parsing: .patch, "/files/.tus/abc") == .anyone)
        #expect(drop.requirement(parsing: .delete, "/files/.tus/abc") == .anyone)
        #expect(AccessPolicy(mode: .private, hasPassword: true).requirement(parsing: .patch, "/files/.tus/abc") == .password)
        let secret = AccessPolicy(mode: .private, hasPassword: true)
        #expect(secret.requirement(parsing: .get, "/") == .password)
        #expect(secret.requirement(parsing: .post, "/upload") == .password)
        let open = AccessPolicy(mode: .open, hasPassword: false)
        #expect(open.requirement(parsing: .get, "/files/") == .anyone)
        #expect(open.requirement(parsing: .delete, "/files/a") == .anyone)
        #expect(AccessPolicy(mode: .open, hasPassword: true).requirement(parsing: .delete, "/files/a") == .password)
        #expect(AccessPolicy(mode: .readOnly, hasPassword: false).requirement(parsing: .get, "/files/") == .anyone)
    }

    @Test func dropModeTakesUploadsButGuardsTheListing() throws {
        let fixture = Fixture { $0.access = .drop }
        #expect(fixture.status(.put, "/files/new.txt", ["Content-Length": "1"]) == 201)
        #expect(fixture.status(.post, "/upload?name=two.txt", ["Content-Length": "1"]) == 201)
        #expect(fixture.status(.get, "/files/") == 401)
        #expect(fixture.status(.get, "/files/new.txt") == 401)
        #expect(fixture.status(.get, "/files/", ["Authorization": Self.bad]) == 401)
        #expect(fixture.status(.get, "/files/", ["Authorization": Self.good]) == 200)
        // In-memory storage cannot open files for download (403): access itself let it through.
        #expect(fixture.status(.get, "/files/new.txt", ["Authorization": Self.good]) == 403)
        #expect(fixture.status(.get, "/config.json") == 200)
    }

    @Test func unauthorizedCarriesTheChallengeAndIsDecidedBeforeTheBody() throws {
        let fixture = Fixture { $0.access = .private }
        guard
            case .respond(let response) = fixture.decision(
                .post, "/upload?name=a.txt", ["Content-Length": "5", "Expect": "100-continue"])
        else {
            Issue.record("the body would have been read")
            return
        }
        #expect(response.status == .unauthorized)
        #expect(response.headers["WWW-Authenticate"] == BasicCredentials.challenge)
        #expect(fixture.storage.files.isEmpty)
    }

    @Test func privateModeGuardsEverything() {
        let fixture = Fixture { $0.access = .private }
        #expect(fixture.status(.get, "/") == 401)
        #expect(fixture.status(.get, "/config.json") == 401)
        #expect(fixture.status(.put, "/files/a.txt", ["Content-Length": "1"]) == 401)
        #expect(fixture.status(.get, "/config.json", ["Authorization": Self.good]) == 200)
        #expect(fixture.status(.put, "/files/a.txt", ["Content-Length": "1", "Authorization": Self.good]) == 201)
    }

    @Test func withoutAVerifierNothingGuardedIsAllowed() {
        var configuration = Configuration()
        configuration.access = .private
        let app = InMemoryServer(configuration: configuration).app
        let head = FiledropAppUploadTests.head(.get, "/config.json", ["Authorization": Self.good])
        #expect(FiledropAppUploadTests.send(app, head).status == .unauthorized)
    }

    @Test func deleteNeedsAllowDeleteAndThePassword() {
        let fixture = Fixture { $0.allowDelete = true }
        _ = fixture.status(.put, "/files/a.txt", ["Content-Length": "1"])
        #expect(fixture.status(.delete, "/files/a.txt") == 401)
        #expect(fixture.status(.delete, "/files/a.txt", ["Authorization": Self.good]) == 204)
        let off = Fixture()
        #expect(off.status(.delete, "/files/a.txt", ["Authorization": Self.good]) == 405)
    }

    @Test func bruteForceIsAnswered429WithRetryAfter() {
        let fixture = Fixture { $0.access = .private }
        for _ in 0..<6 { #expect(fixture.status(.get, "/config.json", ["Authorization": Self.bad]) == 401) }
        let head = FiledropAppUploadTests.head(.get, "/config.json", ["Authorization": Self.good])
        let response = FiledropAppUploadTests.send(fixture.app, head)
        #expect(response.status == .tooManyRequests)
        #expect(response.headers["Retry-After"] == "1")
        let callsWhileLocked = fixture.verifier.calls.load(ordering: .relaxed)
        #expect(callsWhileLocked == 6)
        fixture.clock.advance(seconds: 1)
        #expect(fixture.status(.get, "/config.json", ["Authorization": Self.good]) == 200)
    }

    @Test func missingCredentialsAreNotCountedAsFailures() {
        let fixture = Fixture { $0.access = .private }
        for _ in 0..<20 { #expect(fixture.status(.get, "/") == 401) }
        #expect(fixture.app.access.records.throttle.rememberedClients == 0)
    }

    @Test func verifiedCredentialsAreCachedForAWhile() {
        let fixture = Fixture { $0.access = .private }
        for _ in 0..<10 { #expect(fixture.status(.get, "/config.json", ["Authorization": Self.good]) == 200) }
        #expect(fixture.verifier.calls.load(ordering: .relaxed) == 1)
        fixture.clock.advance(seconds: 61)
        #expect(fixture.status(.get, "/config.json", ["Authorization": Self.good]) == 200)
        #expect(fixture.verifier.calls.load(ordering: .relaxed) == 2)
        for _ in 0..<3 { #expect(fixture.status(.get, "/config.json", ["Authorization": Self.bad]) == 401) }
        #expect(fixture.verifier.calls.load(ordering: .relaxed) == 5)
    }

    @Test func credentialCacheIsBounded() {
        let cache = CredentialCache(lifetime: 10, capacity: 4)
        for index in 0..<4 { cache.insert("k\(index)", now: 0) }
        #expect(cache.contains("k3", now: 5))
        cache.insert("k4", now: 5)
        #expect(cache.contains("k4", now: 5))
        #expect(!cache.contains("k0", now: 5))
        #expect(!cache.contains("k4", now: 15))
    }

    @Test func hostAndOriginChecksComeFirst() {
        let fixture = Fixture()
        let rebound = RequestHead(method: .get, target: "/config.json", version: .http1_1, headers: ["Host": "evil.example"])
        #expect(FiledropAppUploadTests.send(fixture.app, rebound).status == .misdirectedRequest)
        #expect(fixture.status(.put, "/files/a.txt", ["Content-Length": "1", "Sec-Fetch-Site": "cross-site"]) == 403)
        #expect(fixture.status(.put, "/files/b.txt", ["Content-Length": "1", "Origin": "http://evil.example"]) == 403)
        #expect(
            fixture.status(
                .put, "/files/c.txt", ["Content-Length": "1", "Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"])
                == 201)
        #expect(fixture.storage.files.keys.map(\.description) == ["c.txt"])
    }

    @Test func uploadSlotsPerClient() throws {
        let fixture = Fixture { $0.maxUploadsPerClient = 2 }
        var running: [any RequestBodyConsumer] = []
        for name in ["a", "b"] {
            guard case .readBody(let consumer) = fixture.decision(.put, "/files/\(name)", ["Content-Length": "1"]) else {
                Issue.record("refused")
                return
            }
            running.append(consumer)
        }
        guard case .respond(let refusal) = fixture.decision(.put, "/files/c", ["Content-Length": "1"]) else {
            Issue.record("a third upload was admitted")
            return
        }
        #expect(refusal.status == .tooManyRequests)
        running[0].abort()
        guard case .readBody(let third) = fixture.decision(.put, "/files/c", ["Content-Length": "1"]) else {
            Issue.record("the slot was not given back")
            return
        }
        third.abort()
        running[1].abort()
        #expect(fixture.app.access.records.uploads.rememberedClients == 0)
    }

    @Test func hourlyQuotaOneByteOver() throws {
        let fixture = Fixture { $0.uploadQuotaPerHour = 10 }
        #expect(fixture.status(.put, "/files/a", ["Content-Length": "10"], body: String(repeating: "x", count: 10)) == 201)
        #expect(fixture.status(.put, "/files/b", ["Content-Length": "1"], body: "x") == 429)
        fixture.clock.advance(seconds: 3600)
        #expect(fixture.status(.put, "/files/c", ["Content-Length": "11"], body: String(repeating: "x", count: 11)) == 429)
        #expect(fixture.storage.files.keys.map(\.description) == ["a"])
    }

    @Test func aDeclaredBodyTheQuotaCannotTakeIsRefusedBeforeItStarts() throws {
        let log = TusDurabilityTests.RecordingLog()
        let fixture = Fixture(log: log) { $0.uploadQuotaPerHour = 10 }
        #expect(fixture.status(.put, "/files/a", ["Content-Length": "4"], body: "1234") == 201)
        let before = log.kinds
        #expect(fixture.status(.put, "/files/b", ["Content-Length": "7"], body: "1234567") == 429)
        #expect(log.kinds == before + [.uploadRefused], "refused once, never started")
        #expect(fixture.status(.put, "/files/c", ["Content-Length": "6"], body: "123456") == 201, "exactly the rest fits")
    }

    @Test(arguments: [("/files/b.bin", "b.bin"), ("/upload?name=dir/b.bin", "dir/b.bin"), ("/upload", "/upload")])
    func aRefusedUploadIsLoggedOnceAsARefusal(target: String, name: String) throws {
        let log = TusDurabilityTests.RecordingLog()
        let fixture = Fixture(log: log) { $0.maxUploadsPerClient = 1 }
        guard case .readBody(let holder) = fixture.decision(.put, "/files/held.bin", ["Content-Length": "1"]) else {
            Issue.record("refused")
            return
        }
        let before = log.kinds
        var headers: HTTPHeaders = ["Content-Length": "1"]
        if target == "/upload" { headers.add(name: "Content-Type", value: "multipart/form-data; boundary=XyZ") }
        let refusal = fixture.decision(target.hasPrefix("/files/") ? .put : .post, target, headers)
        guard case .respond(let response) = refusal else {
            Issue.record("admitted")
            return
        }
        #expect(response.status == .tooManyRequests)
        #expect(log.kinds == before + [.uploadRefused])
        #expect(log.messages.last?.hasPrefix("upload refused: \(name): You already have 1 uploads running") == true)
        holder.abort()
    }
}
