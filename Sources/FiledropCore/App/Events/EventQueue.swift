/// The bounded queue between whoever makes upload events (event loops, workers) and the one
/// thread that delivers them. Sans-I/O: the I/O layer wraps it in a lock.
///
/// Progress records coalesce: a newer one of the same upload replaces the one still waiting,
/// so a fast upload never fills the queue. When it is full, a progress record is dropped
/// to make room for a record that matters (finished, failed, started, deleted); only when
/// nothing but such records wait is the new record dropped, and counted.
///
/// A finished record is never dropped: it is a stored file, and its hook run and notice are
/// owed (README "Events"). When only finished records wait, one more goes in beyond the
/// capacity; the consumers write them to disk as they come, so the excess lasts only while
/// those writes lag behind files being stored.
public struct EventQueue: Sendable {
    /// What `push` did.
    public enum Outcome: Sendable, Equatable {
        case queued
        /// A waiting progress record of the same upload was replaced.
        case coalesced
        /// The queue was full: the record is lost (counted in `dropped`).
        case dropped
    }

    public let capacity: Int
    private var records: [UploadEvent] = []
    /// Records lost to a full queue since the start.
    public private(set) var dropped = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "a queue needs room")
        self.capacity = capacity
        records.reserveCapacity(capacity)
    }

    public var isEmpty: Bool { records.isEmpty }
    public var waiting: Int { records.count }

    public mutating func push(_ event: UploadEvent) -> Outcome {
        if event.isProgress, let index = waitingIndex(where: { $0.isProgress && $0.uploadID == event.uploadID }) {
            records[index] = event
            return .coalesced
        }
        if records.count >= capacity {
            if event.isProgress {
                dropped += 1
                return .dropped
            }
            if let index = waitingIndex(where: \.isProgress)
                ?? (event.kind == .finished ? waitingIndex(where: { $0.kind != .finished }) : nil)
            {
                records.remove(at: index)
                dropped += 1
            } else if event.kind != .finished {
                dropped += 1
                return .dropped
            }
        }
        records.append(event)
        return .queued
    }

    /// Every waiting record, oldest first, and the queue empty.
    public mutating func takeAll() -> [UploadEvent] {
        defer { records.removeAll(keepingCapacity: true) }
        return records
    }

    private func waitingIndex(where matches: (UploadEvent) -> Bool) -> Int? {
        records.lastIndex(where: matches)
    }
}
