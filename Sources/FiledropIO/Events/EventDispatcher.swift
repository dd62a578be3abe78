import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc

/// The event stream's one queue and its one delivery thread (`events`): `UploadMonitor`
/// publishes into it from event loops and workers, which only take a short lock; the
/// thread hands each record to the consumers (hook, webhook), which queue it again for
/// their own threads. Nothing here ever waits for a hook or a network.
///
/// The queue is an `EventQueue`: progress coalesces, a full queue drops progress first,
/// never a finished record, and a lost record is counted and logged once (not once per
/// record, which under such pressure would make things worse).
public final class EventDispatcher: UploadEventSink, @unchecked Sendable {
    public static let capacity = 4096

    private let log: any LogSink
    private var queue = EventQueue(capacity: capacity)
    private var consumers: [any UploadEventConsumer] = []
    private var loggedOverflow = false
    /// The thread is handing a batch to the consumers.
    private var delivering = false
    private var mutex = pthread_mutex_t()
    private var nonEmpty = pthread_cond_t()

    public init(log: any LogSink) {
        self.log = log
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&nonEmpty, nil)
        pthread_detach(startNamedThread("events") { [self] in deliverForever() })
    }

    /// Records lost to a full queue since the start.
    public var dropped: Int { locked { queue.dropped } }

    public func publish(_ event: UploadEvent) {
        let firstOverflow = locked { () -> Bool in
            let outcome = queue.push(event)
            if outcome == .queued { pthread_cond_signal(&nonEmpty) }
            guard outcome == .dropped, !loggedOverflow else { return false }
            loggedOverflow = true
            return true
        }
        if firstOverflow {
            log.log(
                LogEvent(
                    level: .warning,
                    message: "event queue full (\(Self.capacity) records): events are being lost, "
                        + "a hook or webhook is slower than uploads arrive", fields: [("file", event.path)]))
        }
    }

    /// Who gets the records from now on (at start and on reload); the previous consumers
    /// finish what they queued and stop.
    public func replaceConsumers(_ next: [any UploadEventConsumer]) {
        let previous = locked { () -> [any UploadEventConsumer] in
            defer { consumers = next }
            return consumers
        }
        for consumer in previous where !next.contains(where: { $0 === consumer }) { consumer.finish() }
    }

    private func deliverForever() {
        while true {
            pthread_mutex_lock(&mutex)
            while queue.isEmpty { pthread_cond_wait(&nonEmpty, &mutex) }
            let events = queue.takeAll()
            let targets = consumers
            delivering = true
            pthread_mutex_unlock(&mutex)
            for target in targets { target.deliver(events) }
            locked { delivering = false }
        }
    }

    /// At shutdown: waits until every record published so far reached the consumers (which
    /// keep what they owe on disk), or `deadline` (monotonic nanoseconds) passed.
    public func drain(deadline: UInt64) {
        while locked({ !queue.isEmpty || delivering }), Clock.monotonicNanoseconds() < deadline {
            usleep(5_000)
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
