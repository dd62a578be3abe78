import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// Several daemons on one save directory (issue 20): two `TusUploads` and apps over one
/// partial-upload area, as two processes over one folder. The area is the truth; what one
/// daemon made or wrote, the other finds, and a writer's lock keeps the other out.
@Suite struct TusSharedAreaTests {
    final class Daemons {
        let storage = InMemoryStorage()
        let area: InMemoryPartialUploadArea
        let clock = ManualClock()
        let log = TusDurabilityTests.RecordingLog()
        var apps: [FiledropApp] = []
        var uploads: [TusUploads] = []

        init(expiration: Duration = .seconds(86_400), fsync: Bool = false, maxPending: UInt64? = nil) {
            let clock = clock
            area = InMemoryPartialUploadArea(storage: storage, clock: { clock.now })
            for _ in 0..<2 { start(expiration: expiration, fsync: fsync, maxPending: maxPending) }
        }

        /// One more daemon on the same area, started now.
        func start(expiration: Duration, fsync: Bool, maxPending: UInt64?) {
            let clock = clock
            let made = TusUploads(area: area, digests: ByteSumDigests(), clock: { clock.now })
            var configuration = Configuration()
            configuration.fsync = fsync
            configuration.tusExpiration = expiration
            configuration.tusMaxPending = maxPending
            uploads.append(made)
            apps.append(InMemoryServer(configuration: configuration, storage: storage, log: log, tusUploads: made).app)
        }

        func send(_ daemon: Int, _ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders, body: [UInt8] = []) -> Response {
            var all: HTTPHeaders = ["Host": "localhost", "Tus-Resumable": "1.0.0"]
            for (name, value) in headers { all.add(name: name, value: value) }
            if !body.isEmpty { all.add(name: "Content-Length", value: String(body.count)) }
            let head = RequestHead(method: method, target: target, version: .http1_1, headers: all)
            let decision = apps[daemon].route(
                head, context: RequestContext(client: "10.0.0.1", wallClockSeconds: clock.now, isSecure: false))
            return RequestDriver.send(decision, body: body, pieces: 1)
        }

        func create(_ daemon: Int, length: Int) throws -> String {
            let created = send(
                daemon, .post, "/files/",
                [
                    "Upload-Length": String(length),
                    "Upload-Metadata": "filename " + Base64.encode("shared.bin".utf8),
                ])
            #expect(created.status == .created)
            return try #require(created.headers["location"])
        }

        func patch(_ daemon: Int, _ location: String, offset: Int, _ body: [UInt8]) -> Response {
            send(
                daemon, .patch, location, ["Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream"],
                body: body)
        }

        func head(_ daemon: Int, _ location: String) -> Response { send(daemon, .head, location, [:]) }
    }

    static let content = Array("The quick brown fox jumps over the lazy dog".utf8)
    static let stored = StoragePath(checkedComponents: ["shared.bin"])

    static func text(_ response: Response) -> String {
        if case .bytes(let bytes) = response.body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }

    static func id(of location: String) -> String { String(location.split(separator: "/").last ?? "") }

    @Test func anUploadMadeOnADaemonStartedEarlierIsFoundAndContinuedThere() throws {
        let daemons = Daemons()
        // Daemon 1 started first, so it never saw this upload at start-up.
        let location = try daemons.create(0, length: Self.content.count)
        #expect(daemons.patch(0, location, offset: 0, Array(Self.content[..<20])).status == .noContent)
        let head = daemons.head(1, location)
        #expect(head.status == .ok)
        #expect(head.headers["upload-offset"] == "20")
        #expect(head.headers["upload-length"] == String(Self.content.count))
        #expect(daemons.patch(1, location, offset: 20, Array(Self.content[20...])).status == .noContent)
        #expect(daemons.storage.files[Self.stored] == Self.content)
        #expect(daemons.area.ids().isEmpty)
    }

    @Test func aDaemonTakesOverTheOffsetAnotherOneWrote() throws {
        let daemons = Daemons()
        let location = try daemons.create(0, length: Self.content.count)
        #expect(daemons.head(1, location).headers["upload-offset"] == "0", "daemon 1 now knows it at 0")
        #expect(daemons.patch(0, location, offset: 0, Array(Self.content[..<10])).status == .noContent)
        #expect(daemons.head(1, location).headers["upload-offset"] == "10")
        // The client that did not hear back repeats its first chunk on daemon 1: refused with the real offset.
        let stale = daemons.patch(1, location, offset: 0, Array(Self.content[..<10]))
        #expect(stale.status == .conflict)
        #expect(Self.text(stale).contains("at byte 10"))
    }

    @Test func aPatchWhileAnotherDaemonHoldsTheLockIs423AndWritesNothing() throws {
        let daemons = Daemons()
        let location = try daemons.create(0, length: Self.content.count)
        // Another daemon's writer: an open partial file holding the lock.
        let otherWriter = try daemons.area.openForAppending(id: Self.id(of: location))
        #expect(try otherWriter.tryLock())
        let refused = daemons.patch(1, location, offset: 0, Self.content)
        #expect(refused.status.code == 423)
        #expect(Self.text(refused).contains("Another request is writing this upload"))
        #expect(daemons.area.bytes(Self.id(of: location)) == [])
        #expect(daemons.send(1, .delete, location, [:]).status.code == 423, "not pulled from under the writer")
        otherWriter.unlock()
        #expect(daemons.patch(1, location, offset: 0, Self.content).status == .noContent)
        #expect(daemons.storage.files[Self.stored] == Self.content)
    }

    @Test func aPatchLetsGoOfTheLockBeforeItAnswers() throws {
        let daemons = Daemons()
        let location = try daemons.create(0, length: Self.content.count)
        #expect(daemons.patch(0, location, offset: 0, Array(Self.content[..<10])).status == .noContent)
        let next = try daemons.area.openForAppending(id: Self.id(of: location))
        #expect(try next.tryLock(), "free for the next PATCH, through whichever daemon")
    }

    /// A writer that ignored the lock (not filedrop) changed the partial file while the last
    /// PATCH synced it: what is not exactly Upload-Length is never published.
    @Test(arguments: [(Array("0123456789".utf8), 500), ([], 409)])
    func aPartialFileOfTheWrongSizeIsNeverPublished(extra: [UInt8], status: Int) throws {
        let daemons = Daemons(fsync: true)
        let location = try daemons.create(0, length: Self.content.count)
        let id = Self.id(of: location)
        let area = daemons.area
        area.duringSynchronize = {
            try? area.update(id) { entry in
                if extra.isEmpty { entry.bytes.removeLast(3) } else { entry.bytes += extra }
            }
            area.duringSynchronize = nil
        }
        let answer = daemons.patch(0, location, offset: 0, Self.content)
        #expect(Int(answer.status.code) == status)
        #expect(daemons.storage.files.isEmpty)
        #expect(daemons.log.messages.contains { $0.contains("not saved: the partial file holds") })
        if extra.isEmpty {
            #expect(Self.text(answer).contains("at byte 40"), "kept, and resumes from its real size")
            #expect(daemons.head(1, location).headers["upload-offset"] == "40")
        } else {
            #expect(Self.text(answer).contains("more than its Upload-Length"))
            #expect(area.ids().isEmpty, "discarded")
        }
    }

    @Test func anExpiredUploadIsRemovedOnceWhicheverDaemonLooksFirst() throws {
        let daemons = Daemons(expiration: .seconds(60))
        let location = try daemons.create(0, length: Self.content.count)
        #expect(daemons.head(1, location).status == .ok)
        daemons.clock.advance(by: 61)
        #expect(daemons.head(1, location).status == .notFound)
        #expect(daemons.head(0, location).status == .notFound)
        #expect(daemons.uploads[0].sweep(expiration: .seconds(60)) == 0, "already gone: nothing to remove twice")
        #expect(daemons.area.ids().isEmpty)
        #expect(daemons.log.messages.filter { $0.contains("expired after") }.count == 1)
    }

    @Test func theSweepRemovesAnotherDaemonsAbandonedUploadButNotOneBeingWritten() throws {
        let daemons = Daemons(expiration: .seconds(60))
        let abandoned = try daemons.create(0, length: Self.content.count)
        let busy = try daemons.create(0, length: Self.content.count)
        let writer = try daemons.area.openForAppending(id: Self.id(of: busy))
        #expect(try writer.tryLock())
        daemons.clock.advance(by: 61)
        // Daemon 1 never heard of either.
        #expect(daemons.uploads[1].sweep(expiration: .seconds(60)) == 1)
        #expect(daemons.area.ids() == [Self.id(of: busy)])
        #expect(daemons.head(0, abandoned).status == .notFound)
        writer.unlock()
    }

    @Test func thePendingSpaceCapCountsOtherDaemonsUploads() throws {
        let daemons = Daemons(maxPending: 100)
        _ = try daemons.create(0, length: 60)
        let refused = daemons.send(1, .post, "/files/", ["Upload-Length": "60"])
        #expect(refused.status == .insufficientStorage)
        #expect(daemons.area.ids().count == 1)
    }
}
