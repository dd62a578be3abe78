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
public final class EventDispatcher: UploadEventSink, Sendable {
    public static let capacity = 4096

    private let log: any LogSink
    private let state = ConditionLock(State())

    private struct State: Sendable {
        var queue = EventQueue(capacity: capacity)
        var consumers: [any UploadEventConsumer] = []
        var loggedOverflow = false
        /// The thread is handing a batch to the consumers.
        var delivering = false
    }

    public init(log: any LogSink) {
        self.log = log
        pthread_detach(startNamedThread("events") { [self] in deliverForever() })
    }

    /// Records lost to a full queue since the start.
    public var dropped: Int { state.withLock { $0.queue.dropped } }

    public func publish(_ event: UploadEvent) {
        let firstOverflow = state.withLock { state -> Bool in
            let outcome = state.queue.push(event)
            if outcome == .queued { self.state.signal() }
            guard outcome == .dropped, !state.loggedOverflow else { return false }
            state.loggedOverflow = true
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
        let previous = state.withLock { state -> [any UploadEventConsumer] in
            defer { state.consumers = next }
            return state.consumers
        }
        for consumer in previous where !next.contains(where: { $0 === consumer }) { consumer.finish() }
    }

    private func deliverForever() {
        while true {
            let (events, targets) = state.withLock(when: { !$0.queue.isEmpty }) { state in
                state.delivering = true
                return (state.queue.takeAll(), state.consumers)
            }
            for target in targets { target.deliver(events) }
            state.withLock { $0.delivering = false }
        }
    }

    /// At shutdown: waits until every record published so far reached the consumers (which
    /// keep what they owe on disk), or `deadline` (monotonic nanoseconds) passed.
    public func drain(deadline: UInt64) {
        while state.withLock({ !$0.queue.isEmpty || $0.delivering }), Clock.monotonicNanoseconds() < deadline {
            usleep(5_000)
        }
    }
}
