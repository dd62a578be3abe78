import Glibc

/// A thread of its own that runs the closures handed to it, one at a time and in order, for
/// work that may block and must not hold up an event loop (sd_notify to a reader that stopped
/// reading). Not a DispatchQueue: libdispatch's worker threads set their priority with
/// setpriority(2), which the service's system-call filter refuses (`~@resources`), and
/// libdispatch then writes "Failed to set thread priority" to standard error at every start.
public final class SerialWorkThread: Sendable {
    public typealias Work = @Sendable () -> Void

    private struct Queue: Sendable {
        var items: [Work] = []
        var submitted = 0
        var finished = 0
    }

    private let capacity: Int
    private let queue = ConditionLock(Queue(), monotonic: true)

    /// `capacity`: how many closures may wait; `submit` drops what comes beyond.
    public init(name: String, capacity: Int) {
        self.capacity = capacity
        // The thread lives as long as the process: the daemon makes one at start.
        pthread_detach(startNamedThread(name) { [self] in run() })
    }

    /// Queues `work`; false, and nothing queued, when `capacity` closures wait already.
    @discardableResult
    public func submit(_ work: @escaping Work) -> Bool {
        queue.withLock { queue in
            guard queue.items.count < capacity else { return false }
            queue.items.append(work)
            queue.submitted += 1
            self.queue.broadcast()
            return true
        }
    }

    /// Waits, at most `seconds`, until everything submitted before the call has run; false
    /// on the timeout.
    public func drain(timeout seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        deadline.tv_sec += seconds
        let target = queue.withLock { $0.submitted }
        return queue.withLock(when: { $0.finished >= target }, deadline: deadline) { _, ready in ready }
    }

    private func run() {
        while true {
            let work = queue.withLock(when: { !$0.items.isEmpty }) { $0.items.removeFirst() }
            work()
            queue.withLock { $0.finished += 1 }
            queue.broadcast()
        }
    }
}
