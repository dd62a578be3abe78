import Testing

@testable import FiledropCore

/// The event stream's bounded queue: progress coalesces per upload, a full queue drops
/// progress first, and the records people act on are lost only when nothing else can go.
@Suite struct EventQueueTests {
    static func event(_ kind: UploadEvent.Kind, id: UInt64, size: UInt64 = 0) -> UploadEvent {
        UploadEvent(kind: kind, uploadID: id, path: "f\(id)", size: size, client: "c", method: .put, time: 0)
    }

    @Test func progressOfOneUploadCoalesces() {
        var queue = EventQueue(capacity: 8)
        #expect(queue.push(Self.event(.started, id: 1)) == .queued)
        #expect(queue.push(Self.event(.progress, id: 1, size: 10)) == .queued)
        #expect(queue.push(Self.event(.progress, id: 2, size: 5)) == .queued)
        #expect(queue.push(Self.event(.progress, id: 1, size: 20)) == .coalesced)
        let taken = queue.takeAll()
        #expect(taken.map(\.kind) == [.started, .progress, .progress])
        #expect(taken.map(\.size) == [0, 20, 5])
        #expect(queue.isEmpty)
        #expect(queue.dropped == 0)
    }

    @Test func aFullQueueDropsProgressToKeepAFinishedRecord() {
        var queue = EventQueue(capacity: 3)
        #expect(queue.push(Self.event(.progress, id: 1)) == .queued)
        #expect(queue.push(Self.event(.finished, id: 2)) == .queued)
        #expect(queue.push(Self.event(.finished, id: 3)) == .queued)
        // Full: new progress is lost, a finished record takes the progress record's place.
        #expect(queue.push(Self.event(.progress, id: 4)) == .dropped)
        #expect(queue.push(Self.event(.finished, id: 1)) == .queued)
        #expect(queue.takeAll().map(\.uploadID) == [2, 3, 1])
        #expect(queue.dropped == 2)
    }

    @Test func aFullQueueLosesAnythingButAFinishedRecord() {
        var queue = EventQueue(capacity: 2)
        _ = queue.push(Self.event(.finished, id: 1))
        _ = queue.push(Self.event(.failed, id: 2))
        #expect(queue.push(Self.event(.started, id: 4)) == .dropped)
        // A finished record takes the place of the failed one.
        #expect(queue.push(Self.event(.finished, id: 3)) == .queued)
        #expect(queue.waiting == 2)
        #expect(queue.dropped == 2)
        #expect(queue.takeAll().map(\.uploadID) == [1, 3])
    }

    /// Each finished record is a stored file whose hook run is owed: none is lost, also
    /// when nothing else waits to make room.
    @Test func finishedRecordsGoBeyondTheCapacity() {
        var queue = EventQueue(capacity: 2)
        for id in 1...5 { #expect(queue.push(Self.event(.finished, id: UInt64(id))) == .queued) }
        #expect(queue.push(Self.event(.failed, id: 6)) == .dropped)
        #expect(queue.takeAll().map(\.uploadID) == [1, 2, 3, 4, 5])
        #expect(queue.dropped == 1)
    }

    /// One byte over (one record over) the capacity.
    @Test func capacityIsExact() {
        var queue = EventQueue(capacity: 100)
        for id in 1...100 { #expect(queue.push(Self.event(.started, id: UInt64(id))) == .queued) }
        #expect(queue.push(Self.event(.started, id: 101)) == .dropped)
    }
}
