import Synchronization
import Testing

@testable import FiledropCore
@testable import FiledropTesting

/// The monitor as the one source of the event stream: an upload through the app makes
/// started, progress and finished records with its method, a DELETE makes `deleted`.
@Suite struct UploadEventStreamTests {
    final class RecordingSink: UploadEventSink {
        let events = Mutex<[UploadEvent]>([])
        func publish(_ event: UploadEvent) { events.withLock { $0.append(event) } }
        var recorded: [UploadEvent] { events.withLock { $0 } }
    }

    /// Each reading two seconds after the last, so every write is due a progress record.
    final class SteppingClock: Sendable {
        let value = Atomic<UInt64>(0)
        func read() -> UInt64 { value.add(2_000_000_000, ordering: .relaxed).newValue }
    }

    static func app(_ sink: RecordingSink) -> FiledropApp {
        var configuration = Configuration()
        configuration.allowDelete = true
        let clock = SteppingClock()
        let monitor = UploadMonitor(log: NoLog(), now: { clock.read() }, wallClock: { 1_700_000_000 }, events: sink)
        return FiledropApp(configuration: configuration, storage: InMemoryStorage(), webRoot: InMemoryStorage(), monitor: monitor)
    }

    @Test func putThenDelete() {
        let sink = RecordingSink()
        let app = Self.app(sink)
        let body = Array(repeating: UInt8(ascii: "x"), count: 3000)
        let put = RequestDriver.send(
            app.route(
                InMemoryServer.head(.put, "/files/a%20b.txt", ["Content-Length": "3000"]),
                context: InMemoryServer.context), body: body, pieces: 3)
        #expect(put.status == .created)
        let upload = sink.recorded
        #expect(upload.first?.kind == .started)
        #expect(upload.last?.kind == .finished)
        #expect(upload.contains { $0.kind == .progress })
        #expect(Set(upload.map(\.uploadID)).count == 1)
        #expect(
            upload.allSatisfy { $0.method == .put && $0.client == "test" && $0.time == 1_700_000_000 && $0.expectedSize == 3000 })
        #expect((upload.last?.path, upload.last?.size) == ("a b.txt", 3000))

        let delete = RequestDriver.send(
            app.route(InMemoryServer.head(.delete, "/files/a%20b.txt"), context: InMemoryServer.context))
        #expect(delete.status == .noContent)
        #expect(sink.recorded.last.map { ($0.kind, $0.path, $0.method) } ?? (.started, "", .form) == (.deleted, "a b.txt", nil))
    }

    @Test func aFailedUploadSaysWhy() {
        let sink = RecordingSink()
        let app = Self.app(sink)
        let response = RequestDriver.send(
            app.route(
                InMemoryServer.head(.put, "/files/short.txt", ["Content-Length": "10"]),
                context: InMemoryServer.context), body: Array("abc".utf8))
        #expect(response.status.code >= 400)
        let failed = sink.recorded.last
        #expect(failed?.kind == .failed)
        #expect(failed?.reason != nil)
    }
}
