import Synchronization

/// How the on-upload hook fared since the start, across reloads: for `/metrics` and tests.
/// `runs` counts every run started; `failures` those that exited non-zero, were killed by a
/// signal or could not start (timeouts included); `timeouts` those killed at on-upload-timeout.
public final class HookCounters: Sendable {
    private let started = Atomic<Int>(0)
    private let failed = Atomic<Int>(0)
    private let timedOut = Atomic<Int>(0)

    public init() {}

    public var runs: Int { started.load(ordering: .relaxed) }
    public var failures: Int { failed.load(ordering: .relaxed) }
    public var timeouts: Int { timedOut.load(ordering: .relaxed) }

    public func countRun() { started.add(1, ordering: .relaxed) }
    public func countFailure(timedOut wasTimeout: Bool) {
        failed.add(1, ordering: .relaxed)
        if wasTimeout { timedOut.add(1, ordering: .relaxed) }
    }
}
