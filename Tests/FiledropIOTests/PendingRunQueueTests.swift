import FiledropHTTP
import Foundation
import Glibc
import Synchronization
import Testing

@testable import FiledropCore
@testable import FiledropIO
@testable import FiledropServer

/// The on-disk queue of hook runs and webhook notices: kept in order, claimed by one queue
/// at a time (as by daemons sharing a save directory), resumed by a new queue on the same
/// folder (a restart), a crashed holder's entry free again, a corrupt entry moved aside.
@Suite("PendingRunQueue")
struct PendingRunQueueTests {
    static let folder = ".filedrop-hooks"

    final class Messages: LogSink {
        let lines = Mutex<[String]>([])
        func log(_ event: LogEvent) { lines.withLock { $0.append(event.message) } }
        var all: [String] { lines.withLock { $0 } }
    }

    final class ClaimBox: Sendable {
        let value = Mutex<PendingRunQueue.Claim?>(nil)
    }

    /// A wall clock the test moves.
    final class FakeClock: Sendable {
        let nanoseconds = Atomic<Int64>(1_800_000_000_000_000_000)
        var now: Int64 { nanoseconds.load(ordering: .relaxed) }
    }

    static func event(_ name: String) -> UploadEvent {
        UploadEvent(
            kind: .finished, uploadID: 1, path: name, size: 3, client: "192.0.2.1", method: .put, time: 1_700_000_000,
            sha256: String(repeating: "ab", count: 32))
    }

    static func queue(
        _ fixture: SaveDirectoryFixture, log: any LogSink = Messages(), metrics: RunQueueMetrics = RunQueueMetrics(),
        wallClock: @escaping @Sendable () -> Int64 = { Clock.wallClockNanoseconds() }
    ) -> PendingRunQueue {
        PendingRunQueue(
            settings: .init(folderName: folder, label: "on-upload", durable: true, minFreeSpace: 0),
            storage: fixture.storage, metrics: metrics, log: log, wallClock: wallClock, rescanInterval: 0)
    }

    /// `next()` that gives up after a while instead of waiting forever: nil when nothing came.
    static func next(_ queue: PendingRunQueue, within seconds: Double = 0.5) -> PendingRunQueue.Claim? {
        let result = ClaimBox()
        let thread = Thread {
            let claim = queue.next()
            result.value.withLock { $0 = claim }
        }
        thread.start()
        let deadline = Date().addingTimeInterval(seconds)
        while result.value.withLock({ $0 == nil }), Date() < deadline { usleep(2_000) }
        guard let claim = result.value.withLock({ $0 }) else {
            queue.close()
            while !thread.isFinished { usleep(1_000) }
            return result.value.withLock { $0 }
        }
        return claim
    }

    func entries(_ fixture: SaveDirectoryFixture) throws -> [String] {
        try fixture.entriesOnDisk(Self.folder).sorted()
    }

    @Test func runsComeOutInTheOrderTheyWereAddedAndLeaveNoFile() throws {
        let fixture = try SaveDirectoryFixture()
        let metrics = RunQueueMetrics()
        let queue = Self.queue(fixture, metrics: metrics)
        let names = (0..<50).map { "file \($0).txt" }
        queue.add(names.prefix(20).map(Self.event))
        queue.add(names.dropFirst(20).map(Self.event))
        #expect(try entries(fixture).count == 50)
        #expect(metrics.depth == 50)
        var seen: [String] = []
        while seen.count < 50, let claim = Self.next(queue) {
            #expect(claim.run.event == Self.event(claim.run.event.path).withUploadID(0))
            seen.append(claim.run.event.path)
            queue.done(claim)
        }
        #expect(seen == names)
        #expect(try entries(fixture) == [])
        #expect(metrics.depth == 0)
    }

    @Test func aClaimedEntryIsNotHandedToAnotherQueue() throws {
        let fixture = try SaveDirectoryFixture()
        let first = Self.queue(fixture)
        first.add([Self.event("only.txt")])
        // A second daemon on the same save directory.
        let second = Self.queue(fixture)
        let claim = try #require(Self.next(first))
        #expect(Self.next(second, within: 0.3) == nil)
        first.done(claim)
        #expect(try entries(fixture) == [])
    }

    @Test func aNewQueueResumesWhatWasLeft() throws {
        let fixture = try SaveDirectoryFixture()
        do {
            let before = Self.queue(fixture)
            before.add(["a", "b", "c"].map(Self.event))
            let claim = try #require(Self.next(before))
            #expect(claim.run.event.path == "a")
            before.done(claim)
            before.close()
        }
        // A restart: a fresh storage and queue over the same directory.
        let reopened = try PosixStorage(root: fixture.path)
        let after = PendingRunQueue(
            settings: .init(folderName: Self.folder, label: "on-upload", durable: true, minFreeSpace: 0),
            storage: reopened, metrics: RunQueueMetrics(), log: Messages(), rescanInterval: 0)
        var seen: [String] = []
        while seen.count < 2, let claim = Self.next(after) {
            seen.append(claim.run.event.path)
            after.done(claim)
        }
        #expect(seen == ["b", "c"])
    }

    /// A daemon that dies holding an entry (its descriptors closed by the kernel, here by
    /// dropping the claim unfinished) leaves it to the next: run at least once.
    @Test func anEntryWhoseHolderDiedIsRunAgain() throws {
        let fixture = try SaveDirectoryFixture()
        let crashed = Self.queue(fixture)
        crashed.add([Self.event("interrupted.txt")])
        do {
            let claim = try #require(Self.next(crashed))
            claim.entryFileForTests?.close()
        }
        let next = Self.queue(fixture)
        let claim = try #require(Self.next(next))
        #expect(claim.run.event.path == "interrupted.txt")
        next.done(claim)
        #expect(try entries(fixture) == [])
    }

    @Test(arguments: [0, 1, 40, -1])
    func aTruncatedEntryIsLoggedAndMovedAsideAndTheRestRuns(keeping bytes: Int) throws {
        let fixture = try SaveDirectoryFixture()
        let log = Messages()
        let queue = Self.queue(fixture, log: log)
        queue.add(["first", "second"].map(Self.event))
        let damaged = try #require(try entries(fixture).first)
        let path = fixture.path + "/" + Self.folder + "/" + damaged
        let whole = try #require(fixture.contents(Self.folder + "/" + damaged))
        let kept = bytes < 0 ? Array("{\"version\":\"1\",\"kind\":\"finished\"}".utf8) : Array(whole.prefix(bytes))
        let file = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        #expect(kept.withUnsafeBytes { write(file, $0.baseAddress, $0.count) } == kept.count)
        close(file)
        let claim = try #require(Self.next(queue))
        #expect(claim.run.event.path == "second")
        queue.done(claim)
        #expect(try entries(fixture) == [damaged + ".bad"])
        #expect(
            log.all.contains {
                $0.contains("skipping the unreadable entry \(Self.folder)/\(damaged)") && $0.contains("moved aside")
            })
    }

    @Test func aRetryWaitsForItsTimeAndKeepsItsAttempts() throws {
        let fixture = try SaveDirectoryFixture()
        let clock = FakeClock()
        let queue = Self.queue(fixture, wallClock: { clock.now })
        queue.add([Self.event("later.txt"), Self.event("now.txt")])
        let first = try #require(Self.next(queue))
        #expect(first.run.event.path == "later.txt")
        let due = clock.now / 1_000_000 + 60_000
        queue.retry(first, as: PendingRun(event: first.run.event, attempts: 1, notBefore: due))
        // Not due yet: the other entry goes first, and then nothing is handed out.
        let second = try #require(Self.next(queue))
        #expect(second.run.event.path == "now.txt")
        queue.done(second)
        let third = Self.queue(fixture, wallClock: { clock.now })
        #expect(Self.next(third, within: 0.3) == nil)
        // A minute later (as another queue sees it too, from the entry on disk).
        clock.nanoseconds.add(60_000_000_000, ordering: .relaxed)
        let fourth = Self.queue(fixture, wallClock: { clock.now })
        let again = try #require(Self.next(fourth))
        #expect(again.run.event.path == "later.txt")
        #expect(again.run.attempts == 1 && again.run.notBefore == due)
        fourth.done(again)
        #expect(try entries(fixture) == [])
    }

    @Test func runsThatCannotBeSavedWaitInMemoryAndAreCounted() throws {
        guard SaveDirectoryFixture.canMountTmpfs else { return }
        let fixture = try SaveDirectoryFixture(tmpfsSize: "64k")
        let log = Messages()
        let metrics = RunQueueMetrics()
        let queue = Self.queue(fixture, log: log, metrics: metrics)
        // Fill the file system, then queue.
        let filler = open(fixture.path + "/filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        close(filler)
        queue.add((0..<3).map { Self.event("full \($0).txt") })
        #expect(metrics.unsavedRuns > 0)
        #expect(log.all.contains { $0.contains("cannot save") && $0.contains("wait in memory") })
        var seen: [String] = []
        while seen.count < 3, let claim = Self.next(queue) {
            seen.append(claim.run.event.path)
            queue.done(claim)
        }
        #expect(seen == (0..<3).map { "full \($0).txt" })
    }
}

extension UploadEvent {
    /// The same record with another upload id (entries do not keep it: it is only for coalescing progress).
    func withUploadID(_ id: UInt64) -> UploadEvent {
        var copy = self
        copy.uploadID = id
        return copy
    }
}

extension PendingRunQueue.Claim {
    /// The claimed entry's descriptor, for a test that plays a daemon dying while it holds it.
    var entryFileForTests: FileDescriptor? { entry?.file }
}
