import Glibc

/// A thread of its own that runs the closures handed to it, one at a time and in order, for
/// work that may block and must not hold up an event loop (sd_notify to a reader that stopped
/// reading). Not a DispatchQueue: libdispatch's worker threads set their priority with
/// setpriority(2), which the service's system-call filter refuses (`~@resources`), and
/// libdispatch then writes "Failed to set thread priority" to standard error at every start.
public final class SerialWorkThread: @unchecked Sendable {
    public typealias Work = @Sendable () -> Void

    private let capacity: Int
    // Guarded by `mutex`.
    private var items: [Work] = []
    private var submitted = 0
    private var finished = 0
    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()

    /// `capacity`: how many closures may wait; `submit` drops what comes beyond.
    public init(name: String, capacity: Int) {
        self.capacity = capacity
        pthread_mutex_init(&mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&changed, &attributes)
        pthread_condattr_destroy(&attributes)
        // The thread lives as long as the process: the daemon makes one at start.
        pthread_detach(startNamedThread(name) { [self] in run() })
    }

    /// Queues `work`; false, and nothing queued, when `capacity` closures wait already.
    @discardableResult
    public func submit(_ work: @escaping Work) -> Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard items.count < capacity else { return false }
        items.append(work)
        submitted += 1
        pthread_cond_broadcast(&changed)
        return true
    }

    /// Waits, at most `seconds`, until everything submitted before the call has run; false
    /// on the timeout.
    public func drain(timeout seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        deadline.tv_sec += seconds
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let target = submitted
        while finished < target {
            if pthread_cond_timedwait(&changed, &mutex, &deadline) == ETIMEDOUT { return finished >= target }
        }
        return true
    }

    private func run() {
        while true {
            pthread_mutex_lock(&mutex)
            while items.isEmpty { pthread_cond_wait(&changed, &mutex) }
            let work = items.removeFirst()
            pthread_mutex_unlock(&mutex)
            work()
            pthread_mutex_lock(&mutex)
            finished += 1
            pthread_cond_broadcast(&changed)
            pthread_mutex_unlock(&mutex)
        }
    }
}
