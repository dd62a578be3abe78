import Synchronization

/// The gauges and counters of one queue of pending runs (the on-upload hook's, the
/// webhook's), set by the queue on its own threads and read by a scrape.
public final class RunQueueMetrics: Sendable {
    private let depthValue = Atomic<Int>(0)
    private let lowSpace = Counter()
    private let unsaved = Counter()

    public init() {}

    /// Runs waiting or under way, as this daemon last counted the queue's folder.
    public func setDepth(_ depth: Int) {
        depthValue.store(max(0, depth), ordering: .relaxed)
    }

    /// Runs queued while the save directory had less than min-free-space free.
    public func queuedOnLowSpace(_ count: Int) {
        lowSpace.add(UInt64(count))
    }

    /// Runs that could not be written to disk and wait in memory only.
    public func keptInMemory(_ count: Int) {
        unsaved.add(UInt64(count))
    }

    public var depth: Int { depthValue.load(ordering: .relaxed) }
    public var lowSpaceRuns: UInt64 { lowSpace.value }
    public var unsavedRuns: UInt64 { unsaved.value }
}
