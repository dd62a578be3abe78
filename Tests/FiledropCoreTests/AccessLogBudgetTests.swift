import FiledropCore
import Testing

@testable import FiledropHTTP

/// The access log's budget: the rate setting, the per-interval allowance the loops draw
/// from, and the summary line whose counts stand for the requests left out.
@Suite struct AccessLogBudgetTests {
    static func record(_ target: String, status: Int = 200) -> AccessLogRecord {
        AccessLogRecord(
            method: .get, target: target, status: status, bytesSent: 1, bytesReceived: 0,
            durationMicroseconds: 1, client: "127.0.0.1", responseCut: false)
    }

    @Test(arguments: [("1000/10s", 1000, 10), ("50/1s", 50, 1), ("0/1m", 0, 60), ("7/1h", 7, 3600)])
    func ratesParse(text: String, lines: Int, seconds: Int64) throws {
        let rate = try #require(AccessLogRate(parsing: text))
        #expect(rate.lines == lines && rate.interval == .seconds(seconds))
        #expect(AccessLogRate(parsing: rate.text) == rate)
    }

    @Test(arguments: [
        "", "1000", "/10s", "1000/", "1000/0s", "1000/500ms", "1000/2h", "-1/10s", "1e3/10s", "10000001/10s", "1000/10x",
    ])
    func badRatesAreRefused(text: String) {
        #expect(AccessLogRate(parsing: text) == nil)
    }

    @Test func unlimitedHasNoBudget() {
        #expect(AccessLogRate(parsing: "unlimited") == .unlimited)
        #expect(AccessLogRate.unlimited.lines == nil)
        #expect(AccessLogRate.default.text == "1000/10s")
    }

    @Test func theBudgetAdmitsItsLinesThenCountsTheRestUntilTheIntervalCloses() {
        let queue = AccessLogQueue(loops: 2, rate: AccessLogRate(lines: 3, interval: .seconds(10)), enabled: true, wake: {})
        for index in 0..<5 { queue.add(loop: index % 2, method: .get, status: 200) { Self.record("/a\(index)") } }
        queue.add(loop: 1, method: .get, status: 404) { Self.record("/missing", status: 404) }
        #expect(queue.takeRecords().map(\.target).sorted() == ["/a0", "/a1", "/a2"])
        #expect(queue.takeRecords().isEmpty)
        let (notLogged, interval) = queue.closeInterval()
        #expect(interval == .seconds(10))
        #expect(notLogged.total == 3)
        #expect(notLogged.counts[AccessLogTally.Key(method: .get, status: 200)] == 2)
        #expect(notLogged.counts[AccessLogTally.Key(method: .get, status: 404)] == 1)
        // A new interval, a full budget.
        queue.add(loop: 0, method: .get, status: 200) { Self.record("/b") }
        #expect(queue.takeRecords().map(\.target) == ["/b"])
        #expect(queue.closeInterval().notLogged.isEmpty)
    }

    @Test func aRecordIsMadeOnlyWhenTheBudgetHasRoom() {
        let queue = AccessLogQueue(loops: 1, rate: AccessLogRate(lines: 0, interval: .seconds(1)), enabled: true, wake: {})
        var made = 0
        queue.add(loop: 0, method: .get, status: 200) {
            made += 1
            return Self.record("/")
        }
        #expect(made == 0)
        #expect(queue.closeInterval().notLogged.total == 1)
    }

    @Test func theWriterIsWokenOncePerIdleSpell() {
        final class Wakes: @unchecked Sendable { var count = 0 }
        let wakes = Wakes()
        let queue = AccessLogQueue(loops: 1, rate: .unlimited, enabled: true, wake: { wakes.count += 1 })
        queue.add(loop: 0, method: .get, status: 200) { Self.record("/1") }
        queue.add(loop: 0, method: .get, status: 200) { Self.record("/2") }
        #expect(wakes.count == 1)
        // Records waiting: the writer must not go to sleep on them.
        #expect(!queue.writerWillWait())
        _ = queue.takeRecords()
        #expect(queue.writerWillWait())
        queue.add(loop: 0, method: .get, status: 200) { Self.record("/3") }
        #expect(wakes.count == 2)
    }

    @Test func aReloadSwitchesTheLogAndTheRate() {
        let queue = AccessLogQueue(loops: 1, rate: .default, enabled: true, wake: {})
        queue.update(enabled: false, rate: AccessLogRate(lines: 1, interval: .seconds(5)))
        #expect(!queue.isEnabled)
        #expect(queue.closeInterval().interval == .seconds(5))
    }

    @Test func theSummaryCountsAddUpAndLeadWithTheCommonest() throws {
        var tally = AccessLogTally()
        tally.count(method: .get, status: 200, times: 12_300)
        tally.count(method: .get, status: 404, times: 45)
        let summary = try #require(tally.summary(interval: .seconds(10)))
        #expect(summary.message == "12,345 requests not logged in the last 10 s: 12,300 GET 200, 45 GET 404")
        #expect(summary.kind == .requestsNotLogged && summary.level == AccessLogRecord.level)
        #expect(summary.fields.map(\.key) == ["not_logged", "interval"])
        #expect(summary.fields.map(\.value) == ["12345", "10s"])
        #expect(AccessLogTally().summary(interval: .seconds(10)) == nil)
    }

    @Test func madeUpMethodsAndTooManyKeysShareOneCount() {
        var tally = AccessLogTally()
        for index in 0..<100 { tally.count(method: .other("X\(index)"), status: 501) }
        #expect(tally.counts.count == 1)
        for status in 100..<200 { tally.count(method: .get, status: status) }
        #expect(tally.counts.count == AccessLogTally.maxKeys + 1)
        #expect(tally.total == 200)
        let message = tally.summary(interval: .seconds(1))!.message
        #expect(message.hasPrefix("200 requests not logged in the last 1 s: 100 other 501, "))
    }
}
