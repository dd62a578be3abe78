import Synchronization

/// The last value a worker read, for the main loop to show without waiting.
final class LatestReading: Sendable {
    /// `UInt64.max` stands for "not known (yet)".
    private let stored = Atomic<UInt64>(.max)

    var value: UInt64? {
        let value = stored.load(ordering: .relaxed)
        return value == .max ? nil : value
    }

    func store(_ value: UInt64?) {
        stored.store(value ?? .max, ordering: .relaxed)
    }
}
