import Testing

@testable import FiledropCore

/// A pending run's entry on disk: read back as written, whatever the file's name holds;
/// refused (never half-read) when cut short anywhere; names that sort in queue order.
@Suite struct PendingRunTests {
    static let runs = [
        PendingRun(
            event: UploadEvent(
                kind: .finished, uploadID: 9, path: "run 7/data \"quoted\" \u{1F600}.csv", size: 48213,
                expectedSize: 48213, client: "::ffff:192.0.2.7", method: .tus, time: 1_764_658_800,
                sha256: String(repeating: "9f", count: 32)),
            attempts: 3, notBefore: 1_764_658_812_345),
        PendingRun(
            event: UploadEvent(
                kind: .finished, uploadID: 0, path: "a\\b\tc.txt", size: 0, client: "192.0.2.1",
                method: nil, time: -1)),
    ]

    @Test(arguments: PendingRunTests.runs)
    func anEntryReadsBackAsWritten(run: PendingRun) throws {
        var expected = run
        expected.event.uploadID = 0
        #expect(try PendingRun(decoding: run.encoded) == expected)
    }

    /// Cut at every offset: an error each time, never a run with a shorter path or size.
    @Test func aCutEntryIsAnError() {
        let bytes = PendingRunTests.runs[0].encoded
        for length in 0..<(bytes.count - 1) {
            #expect(throws: PendingRun.DecodingError.self) { try PendingRun(decoding: Array(bytes.prefix(length))) }
        }
    }

    @Test func foreignFilesAreErrors() {
        for text in ["", "{}", "[]", "{\"version\":\"2\"}", "{\"version\":\"1\",\"kind\":\"finished\",\"path\":\"x\"}"] {
            #expect(throws: PendingRun.DecodingError.self) { try PendingRun(decoding: Array(text.utf8)) }
        }
    }

    @Test func namesSortInTheOrderTheyWereMadeAlsoWhenTheClockStepsBack() {
        var names = PendingRunNames(instance: "1a2b")
        let made = [5_000, 999_999_999_999, 7, 1_000_000_000_000].map { names.next(time: $0) }
        #expect(made.sorted() == made)
        #expect(made.allSatisfy(PendingRunNames.isEntry))
        #expect(made[0] == "00000000000000005000-000000000001-1a2b.run")
        #expect(!PendingRunNames.isEntry(made[0] + ".tmp") && !PendingRunNames.isEntry(made[0] + ".bad"))
    }
}
