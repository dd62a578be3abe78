import Foundation
import Testing

@testable import FiledropClient

/// The pure parts of `filedrop send --watch`: when a file has settled, which names are
/// sent, and `--after-send`, and the ledger of sent files.
@Suite struct WatchFolderTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aFileIsReadyOnceUnchangedForTheSettleTime() {
        var tracker = SettleTracker(settle: 2 * Self.second)
        let stat = SettleTracker.Observation(size: 10, modified: 1)
        tracker.observe("a", stat, now: 0)
        tracker.observe("a", stat, now: Self.second)
        #expect(tracker.takeReady(now: Self.second).isEmpty)
        #expect(tracker.nextDeadline(now: Self.second) == Self.second)
        let ready = tracker.takeReady(now: 2 * Self.second)
        #expect(ready.map(\.name) == ["a"])
        #expect(tracker.pending.isEmpty)
    }

    @Test func aFileThatKeepsChangingIsNeverReady() {
        var tracker = SettleTracker(settle: 2 * Self.second)
        for step in 0..<20 {
            tracker.observe(
                "log", SettleTracker.Observation(size: Int64(step), modified: Int64(step)), now: UInt64(step) * Self.second)
            #expect(tracker.takeReady(now: UInt64(step) * Self.second).isEmpty)
        }
        #expect(tracker.takeReady(now: 21 * Self.second).map(\.name) == ["log"])
    }

    @Test func aChangedTimeAloneStartsTheWaitAgain() {
        var tracker = SettleTracker(settle: 2 * Self.second)
        tracker.observe("a", SettleTracker.Observation(size: 5, modified: 1), now: 0)
        tracker.observe("a", SettleTracker.Observation(size: 5, modified: 2), now: Self.second)
        #expect(tracker.takeReady(now: 2 * Self.second).isEmpty)
        #expect(tracker.takeReady(now: 3 * Self.second).count == 1)
    }

    @Test func aVanishedFileIsForgotten() {
        var tracker = SettleTracker(settle: Self.second)
        tracker.observe("a", SettleTracker.Observation(size: 1, modified: 1), now: 0)
        tracker.forget("a")
        #expect(tracker.takeReady(now: 10 * Self.second).isEmpty)
        #expect(tracker.nextDeadline(now: 0) == nil)
    }

    @Test(arguments: [".hidden", "photo.jpg~", "video.mp4.part", "x.crdownload", "a.tmp", ".a.swp", "big.iso.filedrop-part", ""])
    func hiddenAndTemporaryNamesAreNotSent(name: String) {
        #expect(!WatchedName.isSent(name))
    }

    @Test(arguments: ["scan.pdf", "photo 1.jpg", "part.txt", "notes.tmp.txt", "😀.bin"])
    func ordinaryNamesAreSent(name: String) {
        #expect(WatchedName.isSent(name))
    }

    @Test func afterSendParses() {
        #expect(AfterSend("keep") == .keep)
        #expect(AfterSend("delete") == .delete)
        #expect(AfterSend("move:/srv/done") == .move("/srv/done"))
        #expect(AfterSend("move:") == nil)
        #expect(AfterSend("remove") == nil)
    }

    @Test func theLedgerRemembersAcrossInstancesAndTellsVersionsApart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("watch/outbox.sent")
        var ledger = SentLedger(file: file)
        #expect(!ledger.contains(name: "a\nb.txt", size: 3, modified: 7))
        try ledger.record(SentLedger.Entry(name: "a\nb.txt", size: 3, modified: 7, sha256: String(repeating: "0", count: 64)))
        let reread = SentLedger(file: file)
        #expect(reread.contains(name: "a\nb.txt", size: 3, modified: 7))
        #expect(!reread.contains(name: "a\nb.txt", size: 4, modified: 7))
        #expect(!reread.contains(name: "a\nb.txt", size: 3, modified: 8))
    }

    @Test func aTornLastLineIsSkipped() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("x.sent")
        try Data("{\"name\":\"a\",\"size\":1,\"modified\":2}\n{\"name\":\"b\",\"si".utf8).write(to: file)
        let ledger = SentLedger(file: file)
        #expect(ledger.contains(name: "a", size: 1, modified: 2))
    }

    @Test func theLedgerFileIsNamedAfterTheFolder() {
        let file = SentLedger.defaultFile(folder: "/home/ann/My Scans", environment: ["HOME": "/home/ann"])
        #expect(file.path == "/home/ann/.local/state/filedrop/watch/_home_ann_My%20Scans.sent")
        let state = SentLedger.defaultFile(folder: "/x", environment: ["HOME": "/h", "XDG_STATE_HOME": "/state"])
        #expect(state.path == "/state/filedrop/watch/_x.sent")
    }
}
