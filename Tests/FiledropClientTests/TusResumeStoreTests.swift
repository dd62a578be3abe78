import Foundation
import Testing

@testable import FiledropClient

/// The remembered tus upload URLs: found for the same file version and server only.
@Suite struct TusResumeStoreTests {
    let store = TusResumeStore(
        directory: FileManager.default.temporaryDirectory.appendingPathComponent("fdc-store-\(UUID().uuidString)"))
    let key = TusResumeStore.Key(
        server: "http://127.0.0.1:8080", path: "/home/me/big.iso", size: 1 << 30, modified: 1_700_000_000.5)

    @Test func remembersAndForgets() throws {
        defer { try? FileManager.default.removeItem(at: store.directory) }
        #expect(store.uploadURL(for: key) == nil)
        let url = URL(string: "http://127.0.0.1:8080/files/.tus/abc")!
        store.remember(url, for: key)
        #expect(store.uploadURL(for: key) == url)
        store.forget(key)
        #expect(store.uploadURL(for: key) == nil)
    }

    @Test func anotherVersionOrServerIsAnotherUpload() throws {
        defer { try? FileManager.default.removeItem(at: store.directory) }
        store.remember(URL(string: "http://127.0.0.1:8080/files/.tus/abc")!, for: key)
        var changed = key
        changed.modified += 1
        #expect(store.uploadURL(for: changed) == nil)
        changed = key
        changed.size += 1
        #expect(store.uploadURL(for: changed) == nil)
        changed = key
        changed.server = "http://127.0.0.1:9090"
        #expect(store.uploadURL(for: changed) == nil)
        #expect(key.fileName.hasPrefix("tus-") && key.fileName.count == "tus-".count + 16 + ".json".count)
    }
}

/// Progress reports: throttled, forced ones always through, resume offset carried.
@Suite struct ProgressMeterTests {
    final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var values: [TransferProgress] = []
        func add(_ value: TransferProgress) { lock.withLock { values.append(value) } }
    }

    @Test func throttlesButNeverDropsForcedReports() {
        let collected = Collected()
        let meter = ProgressMeter(handler: { collected.add($0) }, minimumInterval: 60)
        meter.start(at: 100, total: 1000)
        for bytes in stride(from: Int64(101), to: 1000, by: 1) { meter.update(bytes) }
        meter.update(1000, force: true)
        #expect(collected.values.map(\.bytes) == [100, 1000])
        #expect(collected.values.allSatisfy { $0.resumedFrom == 100 && $0.total == 1000 })
        #expect(collected.values.last?.fraction == 1)
    }

    @Test func asyncStreamDeliversTheNewestValue() async {
        let (stream, report, finish) = TransferProgress.makeStream()
        report(TransferProgress(bytes: 1, total: 10, bytesPerSecond: 0))
        report(TransferProgress(bytes: 7, total: 10, bytesPerSecond: 0))
        finish()
        var seen: [Int64] = []
        for await progress in stream { seen.append(progress.bytes) }
        #expect(seen == [7])
    }
}
