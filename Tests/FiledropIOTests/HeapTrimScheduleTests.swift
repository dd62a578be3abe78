import Testing

@testable import FiledropIO
@testable import FiledropServer

/// When the heap is trimmed: once after a burst of closes has calmed down, never during it,
/// never for steady traffic. Ticks are fed by hand; no allocator is touched.
@Suite struct HeapTrimScheduleTests {
    /// What `tick` answers for each running total of closes, in order.
    static func answers(_ totals: [Int]) -> [Bool] {
        var schedule = HeapTrimSchedule(burst: 256, calm: 32)
        return totals.map { schedule.tick(closed: $0) }
    }

    @Test func aBurstIsTrimmedOnceItCalmsDown() {
        // 100 closes a tick (a flood going on), then 5 in a tick: over. The caller counts
        // from zero after a trim, and a few closes later nothing is due.
        #expect(Self.answers([100, 200, 300, 400, 500, 505, 3]) == [false, false, false, false, false, true, false])
    }

    @Test func steadyTrafficIsNeverTrimmed() {
        // 10 closes a tick (40 a second) for a long time: thousands in all, never a burst.
        #expect(!Self.answers((1...1000).map { $0 * 10 }).contains(true))
    }

    @Test func aShortBurstIsNotWorthATrim() {
        #expect(Self.answers([40, 41, 42, 42]) == [false, false, false, false])
    }
}
