import Testing

@testable import FiledropCore
@testable import FiledropServer

@Suite struct NoticeThrottleTests {
    static let second: UInt64 = 1_000_000_000

    @Test func oneLinePerKeyPerIntervalCountingTheRest() {
        var throttle = NoticeThrottle(interval: 10 * Self.second)
        #expect(throttle.note("a", now: Self.second) == 0)
        #expect(throttle.note("a", now: 2 * Self.second) == nil)
        #expect(throttle.note("a", now: 11 * Self.second - 1) == nil)
        #expect(throttle.note("b", now: 3 * Self.second) == 0)
        #expect(throttle.note("a", now: 11 * Self.second) == 2)
        #expect(throttle.note("a", now: 12 * Self.second) == nil)
    }

    /// Loops read the clock once per wakeup: another loop's "now" may be a little behind.
    @Test func aSlightlyEarlierTimeCountsAsWithinTheInterval() {
        var throttle = NoticeThrottle(interval: 10 * Self.second)
        #expect(throttle.note("a", now: 5 * Self.second) == 0)
        #expect(throttle.note("a", now: 5 * Self.second - 1000) == nil)
        #expect(throttle.note("a", now: 15 * Self.second) == 1)
    }

    @Test func aFullTableForgetsExpiredKeysAndStillLogsNewOnes() {
        var throttle = NoticeThrottle(interval: 10 * Self.second, capacity: 2)
        #expect(throttle.note("a", now: 0) == 0)
        #expect(throttle.note("b", now: 0) == 0)
        // Full of recent keys: a third logs but is not remembered.
        #expect(throttle.note("c", now: Self.second) == 0)
        #expect(throttle.note("c", now: Self.second) == 0)
        #expect(throttle.note("a", now: Self.second) == nil)
        // Once a and b have expired they are forgotten, and c is remembered.
        #expect(throttle.note("c", now: 20 * Self.second) == 0)
        #expect(throttle.note("c", now: 21 * Self.second) == nil)
    }
}
