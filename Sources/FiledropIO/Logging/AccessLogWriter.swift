import CLinux
import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc
import Synchronization

/// The thread that writes the access log: it takes what the loops left in the
/// `AccessLogQueue` and hands it to the sink in batches, so a loop never waits on journald's
/// socket or a slow pipe. A record that arrives while the writer is idle goes out at once;
/// then the writer waits `flushInterval` to gather the next batch, so under load it writes
/// a few times a second, not once per request. Once per interval of `access-log-rate` it
/// logs the summary of what the budget left out, and again on `stop()`.
public final class AccessLogWriter: Sendable {
    /// How long records gather between two writes while requests keep coming.
    public static let flushInterval: UInt64 = 100_000_000

    public let queue: AccessLogQueue
    private let sink: any LogSink
    private let wakeup: Wakeup
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)

    /// `loops`: the server's event loops, one queue shard each.
    public init(sink: any LogSink, loops: Int, rate: AccessLogRate, enabled: Bool) throws(SystemError) {
        let wakeup = Wakeup(descriptor: try syscall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC)) })
        self.wakeup = wakeup
        self.sink = sink
        // The queue keeps the eventfd open as long as a connection can still reach it.
        queue = AccessLogQueue(loops: loops, rate: rate, enabled: enabled) { wakeup.signal() }
    }

    public func start() {
        let handle = startNamedThread("access-log") { [self] in run() }
        thread.withLock { $0 = handle }
    }

    /// Writes what is left, and the summary of the interval so far; returns once the thread has.
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeup.signal()
        if let handle = thread.withLock({ current -> pthread_t? in
            defer { current = nil }
            return current
        }) {
            pthread_join(handle, nil)
        }
    }

    private func run() {
        var intervalStart = Clock.monotonicNanoseconds()
        while true {
            let stop = stopping.load(ordering: .sequentiallyConsistent)
            let records = queue.takeRecords()
            if !records.isEmpty { sink.logRequests(records) }
            let now = Clock.monotonicNanoseconds()
            if stop || now &- intervalStart >= queue.currentRate.intervalNanoseconds {
                let notLogged = queue.closeInterval().notLogged
                // The time it really covered: an interval cut short by stop, or one the sink held up.
                let seconds = max(1, (now &- intervalStart + 500_000_000) / 1_000_000_000)
                if let summary = notLogged.summary(interval: .seconds(seconds)) { sink.log(summary) }
                intervalStart = now
            }
            if stop { return }
            let untilIntervalEnd =
                queue.currentRate.intervalNanoseconds &- min(now &- intervalStart, queue.currentRate.intervalNanoseconds)
            if !records.isEmpty {
                sleep(nanoseconds: min(Self.flushInterval, untilIntervalEnd))
            } else if queue.writerWillWait() {
                wakeup.wait(milliseconds: Int32(min(untilIntervalEnd / 1_000_000 + 1, UInt64(Int32.max))))
            }
        }
    }

    private func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            if stopping.load(ordering: .relaxed) { return }
            request = remaining
        }
    }
}

/// The eventfd the loops use to wake the writer; closed when the last holder lets go.
private final class Wakeup: Sendable {
    let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        Glibc.close(descriptor)
    }

    func signal() {
        var one: UInt64 = 1
        // A full counter (never, in practice) already means "wake up".
        _ = Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Until signalled or `milliseconds` pass; takes the signal.
    func wait(milliseconds: Int32) {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&request, 1, milliseconds)
        var count: UInt64 = 0
        _ = Glibc.read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
}
