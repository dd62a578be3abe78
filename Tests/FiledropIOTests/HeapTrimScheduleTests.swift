import Testing
@testable import FiledropIO

/// When the heap is trimmed: once after a burst of closes has calmed down, never during it,
/// never for ordinary traffic. Ticks are fed by hand; no allocator is touched.
@Suite struct HeapTrimScheduleTests {
    @Test func aBurstIsTrimmedOnceItCalmsDown() {
        var schedule = HeapTrimSchedule(burst: 256, calm: 32)
        // 100 closes a tick: a flood going on.
        for tick in 1...5 {
            #expect(!schedule.tick(closed: tick * 100), "tick \(tick)")
        }
        // Five closes in the last tick: over. The caller counts from zero after a trim.
        #expect(schedule.tick(closed: 505))
        #expect(!schedule.tick(closed: 3))
    }

    @Test func steadyTrafficIsNeverTrimmed() {
        // 10 closes a tick (40 a second) for a long time: many hundreds in all, never a burst.
        var schedule = HeapTrimSchedule(burst: 256, calm: 32)
        for tick in 1...1000 {
            #expect(!schedule.tick(closed: tick * 10), "tick \(tick)")
        }
    }

    @Test func aShortBurstIsNotWorthATrim() {
        var schedule = HeapTrimSchedule(burst: 256, calm: 32)
        #expect(!schedule.tick(closed: 40))
        #expect(!schedule.tick(closed: 41))
        #expect(!schedule.tick(closed: 42))
    }
}
