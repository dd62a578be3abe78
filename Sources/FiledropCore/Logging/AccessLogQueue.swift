import FiledropHTTP
import Synchronization

/// Where the event loops leave finished requests for the access log, so that no loop ever
/// waits on the log's destination (journald's socket, a slow pipe): each loop appends to a
/// shard of its own, and a writer thread takes the shards' contents in batches (as nginx's
/// `access_log ... buffer= flush=`). A budget of lines per interval (`access-log-rate`)
/// bounds what is written; past it a request is only counted by method and status, and
/// the writer logs one summary line per interval for them.
///
/// Everything here is touched by the loops on every request, so what they do is cheap: an
/// atomic load to see whether the log is on, one to see whether budget is left, and their
/// own shard's lock, which only the writer also takes, a few times a second.
public final class AccessLogQueue: Sendable {
    /// Records a shard holds at most; past it (the writer is stuck) requests are only counted.
    public static let shardCapacity = 8192

    private struct Shard: Sendable {
        var records: [AccessLogRecord] = []
        var notLogged = AccessLogTally()
    }

    /// A shard behind its own lock, on a cache line of its own.
    private final class LockedShard: Sendable {
        let state = Mutex(Shard())

        func withLock<T>(_ body: (inout Shard) -> T) -> T {
            state.withLock { body(&$0) }
        }
    }

    private let shards: [LockedShard]
    private let enabled: Atomic<Bool>
    /// Lines left in this interval's budget; below zero once it is spent. `Int.max / 2` when unlimited.
    private let budget: Atomic<Int>
    private let rate: Mutex<AccessLogRate>
    /// True while the writer waits with nothing to write: the next record wakes it.
    private let writerIdle = Atomic<Bool>(true)
    private let wake: @Sendable () -> Void

    /// `loops`: shards to make, one per event loop. `wake` tells the writer a record is waiting.
    public init(loops: Int, rate: AccessLogRate, enabled: Bool, wake: @escaping @Sendable () -> Void) {
        shards = (0..<max(1, loops)).map { _ in LockedShard() }
        self.enabled = Atomic(enabled)
        self.rate = Mutex(rate)
        budget = Atomic(rate.lines ?? Int.max / 2)
        self.wake = wake
    }

    /// Whether requests are logged at all (`access-log`, and `log-level` at info or below).
    public var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    public var currentRate: AccessLogRate { rate.withLock { $0 } }

    /// A reload's settings; a new rate applies from the next interval.
    public func update(enabled: Bool, rate: AccessLogRate) {
        self.enabled.store(enabled, ordering: .relaxed)
        self.rate.withLock { $0 = rate }
    }

    /// From loop `loop`: a finished request. `record` is made only when the budget has room.
    public func add(loop: Int, method: HTTPMethod, status: Int, record: () -> AccessLogRecord) {
        let shard = shards[loop % shards.count]
        let admitted = budget.load(ordering: .relaxed) > 0 && budget.wrappingSubtract(1, ordering: .relaxed).oldValue > 0
        guard admitted else {
            shard.withLock { $0.notLogged.count(method: method, status: status) }
            return
        }
        let made = record()
        let held = shard.withLock { shard -> Bool in
            guard shard.records.count < Self.shardCapacity else { return false }
            shard.records.append(made)
            return true
        }
        guard held else {
            shard.withLock { $0.notLogged.count(method: method, status: status) }
            return
        }
        if writerIdle.load(ordering: .sequentiallyConsistent), writerIdle.exchange(false, ordering: .sequentiallyConsistent) {
            wake()
        }
    }

    /// For the writer: every record waiting, shard by shard.
    public func takeRecords() -> [AccessLogRecord] {
        var taken: [AccessLogRecord] = []
        for shard in shards {
            let records = shard.withLock { shard -> [AccessLogRecord] in
                defer { shard.records = [] }
                return shard.records
            }
            taken += records
        }
        return taken
    }

    /// For the writer, at the end of an interval: what went unlogged in it (with the
    /// interval's length), and a full budget for the next.
    public func closeInterval() -> (notLogged: AccessLogTally, interval: Duration) {
        var tally = AccessLogTally()
        for shard in shards {
            tally.add(
                shard.withLock { shard -> AccessLogTally in
                    defer { shard.notLogged = AccessLogTally() }
                    return shard.notLogged
                })
        }
        let rate = currentRate
        budget.store(rate.lines ?? Int.max / 2, ordering: .relaxed)
        return (tally, rate.interval)
    }

    /// For the writer, before it waits: marks it idle, then says whether a record arrived
    /// meanwhile (then it should take it rather than wait). A loop that appends either sees
    /// the writer idle and wakes it, or appended before this looked.
    public func writerWillWait() -> Bool {
        writerIdle.store(true, ordering: .sequentiallyConsistent)
        let waiting = shards.contains { $0.withLock { !$0.records.isEmpty } }
        if waiting { writerIdle.store(false, ordering: .sequentiallyConsistent) }
        return !waiting
    }
}
