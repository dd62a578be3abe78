/// Who holds the server's connection slots, and what a new connection gets: a slot, a slot
/// made by closing a connection that has not got anywhere yet, or a refusal.
///
/// A connection that has not finished its TLS handshake or its first request head costs an
/// attacker a few bytes and holds a slot for the whole head timeout; from enough addresses,
/// such connections would take every slot, however fair the shares. So when every slot is
/// taken, a newcomer the per-address bounds (`ConnectionAdmission`) admit takes the slot of
/// the oldest such connection: first one still in its handshake, then one still sending its
/// first head. Connections that sent a whole request (serving it, uploading, downloading,
/// or kept alive after it) are never closed for a newcomer; once every slot is theirs,
/// newcomers wait in the listen backlog as before (`acceptsNewcomers`).
///
/// The victim is closed by its owner a moment later (in the I/O layer, on another thread): it
/// keeps its slot until `closed`, and the newcomer takes a slot promised by the eviction, so
/// the open count may exceed the limit by the evictions on their way. A victim that finishes
/// its first head before its owner acts (`advanced(_:to: .committed)`) is spared, and the
/// count exceeds the limit until any connection closes.
///
/// Pure and single-threaded: the server keeps it behind a lock; `now` is the caller's clock.
public struct ConnectionSlots: Sendable {
    /// A connection's slot, unique for the life of the table (never reused).
    public struct ID: Hashable, Sendable, Comparable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }
        public static func < (lhs: ID, rhs: ID) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How far a connection has got; it only ever moves forward.
    public enum Stage: Int, Sendable, Comparable {
        /// On the HTTPS port, before the TLS handshake is done.
        case handshaking
        /// Before the first request's head has arrived whole.
        case awaitingHead
        /// A whole head has arrived: never evicted for a newcomer.
        case committed

        public static func < (lhs: Stage, rhs: Stage) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What to do with a new connection.
    public enum Admission: Sendable, Equatable {
        case admit(ID)
        /// Admit as `id`, and have `victim`'s owner close it (`Eviction`).
        case admitEvicting(ID, Eviction)
        case refuse(ConnectionAdmission.Decision)
    }

    /// A connection to close to make room.
    public struct Eviction: Sendable, Equatable {
        public let victim: ID
        /// Where the victim lives, as given to `admit` (the I/O layer's loop index).
        public let owner: Int
        public let client: String
        public let stage: Stage
        /// How long the victim has held its slot, in the clock's units.
        public let age: UInt64
    }

    private struct Record {
        let client: String
        let owner: Int
        let since: UInt64
        var stage: Stage
        var evicting = false
    }

    public let policy: ConnectionAdmission
    private var records: [ID: Record] = [:]
    private var perClient: [String: Int] = [:]
    /// Oldest first, those in their handshake and those awaiting their first head. Entries of
    /// connections that moved on or closed stay until they reach the front or are compacted.
    private var handshaking = EvictionQueue()
    private var awaitingHead = EvictionQueue()
    private var nextID: UInt64 = 1
    /// Connections holding a slot, victims on their way out included.
    public private(set) var open = 0
    /// Victims chosen and not yet closed: their slots are promised to the newcomers.
    public private(set) var evicting = 0

    public init(policy: ConnectionAdmission) {
        self.policy = policy
    }

    /// Slots neither held nor promised.
    public var free: Int { max(0, policy.maxConnections - (open - evicting)) }

    /// Whether every slot is held or promised.
    public var isFull: Bool { free == 0 }

    /// Connections a newcomer could evict now.
    public var evictable: Int { handshaking.live + awaitingHead.live }

    /// Whether a new connection can get a slot: one is free, or one can be made. False means
    /// accepting should pause (newcomers wait in the listen backlog) until a connection closes.
    public var acceptsNewcomers: Bool { !isFull || evictable > 0 }

    /// Connections `client` holds.
    public func held(by client: String) -> Int { perClient[client, default: 0] }

    /// The stage of a connection that holds a slot, nil once closed.
    public func stage(of id: ID) -> Stage? { records[id]?.stage }

    /// Whether `id` was chosen as a victim and has not closed (nor been spared) yet.
    public func isEvicting(_ id: ID) -> Bool { records[id]?.evicting == true }

    /// Decides for a new connection from `client` that starts at `stage` (`.handshaking` on
    /// the HTTPS port, `.awaitingHead` otherwise) and would live at `owner`.
    public mutating func admit(client: String, stage: Stage, owner: Int, now: UInt64) -> Admission {
        let held = perClient[client, default: 0]
        let counted = open - evicting
        var decision = policy.decide(open: counted, heldByClient: held, addresses: perClient.count)
        var eviction: Eviction?
        if decision == .serverFull, evictable > 0 {
            // Judged as if the victim's slot were free: the per-address cap and fair share
            // (at the floor, this full) still bound what one address gets this way.
            decision = policy.decide(open: policy.maxConnections - 1, heldByClient: held, addresses: perClient.count)
            if decision == .admit { eviction = chooseVictim(now: now) }
        }
        guard decision == .admit else { return .refuse(decision) }
        let id = ID(rawValue: nextID)
        nextID += 1
        records[id] = Record(client: client, owner: owner, since: now, stage: stage)
        perClient[client] = held + 1
        open += 1
        if stage != .committed { enqueue(id, at: stage) }
        return eviction.map { .admitEvicting(id, $0) } ?? .admit(id)
    }

    /// The connection got further: its handshake is done, or its first head arrived.
    public mutating func advanced(_ id: ID, to stage: Stage) {
        guard var record = records[id], stage > record.stage else { return }
        if !record.evicting { withQueue(record.stage) { $0.left() } }
        if record.evicting && stage == .committed {
            // Spared: it sent a whole request before its owner closed it.
            record.evicting = false
            evicting -= 1
        } else if !record.evicting && stage != .committed {
            record.stage = stage
            records[id] = record
            enqueue(id, at: stage)
            return
        }
        record.stage = stage
        records[id] = record
    }

    /// The connection closed (evicted or not) and gives its slot back.
    public mutating func closed(_ id: ID) {
        guard let record = records.removeValue(forKey: id) else { return }
        open -= 1
        if record.evicting {
            evicting -= 1
        } else if record.stage != .committed {
            withQueue(record.stage) { $0.left() }
        }
        let remaining = perClient[record.client, default: 1] - 1
        perClient[record.client] = remaining > 0 ? remaining : nil
    }

    private mutating func chooseVictim(now: UInt64) -> Eviction? {
        for stage in [Stage.handshaking, .awaitingHead] {
            while let id = withQueue(stage, { $0.popFront() }) {
                // Entries of connections that moved on or closed are skipped.
                guard var record = records[id], record.stage == stage, !record.evicting else { continue }
                withQueue(stage) { $0.left() }
                record.evicting = true
                records[id] = record
                evicting += 1
                return Eviction(
                    victim: id, owner: record.owner, client: record.client, stage: stage,
                    age: now >= record.since ? now - record.since : 0)
            }
        }
        return nil
    }

    private mutating func enqueue(_ id: ID, at stage: Stage) {
        withQueue(stage) { $0.append(id) }
        guard withQueue(stage, { $0.needsCompaction }) else { return }
        let records = records
        withQueue(stage) { $0.compact { id in records[id].map { $0.stage == stage && !$0.evicting } ?? false } }
    }

    private mutating func withQueue<R>(_ stage: Stage, _ body: (inout EvictionQueue) -> R) -> R {
        switch stage {
        case .handshaking: body(&handshaking)
        case .awaitingHead: body(&awaitingHead)
        case .committed: preconditionFailure("committed connections are never evicted")
        }
    }
}

/// Connection ids oldest first, with removal left lazy: `live` counts those still at this
/// stage; stale entries are skipped at the front, and dropped by `compact` once they outnumber
/// the live ones, so the queue stays proportional to the connections open.
struct EvictionQueue: Sendable {
    private var ids: [ConnectionSlots.ID] = []
    private var head = 0
    private(set) var live = 0

    mutating func append(_ id: ConnectionSlots.ID) {
        ids.append(id)
        live += 1
    }

    /// One entry's connection left this stage (its entry is now stale).
    mutating func left() {
        live -= 1
    }

    /// The oldest entry, stale or not; the caller calls `left()` if it takes a live one.
    mutating func popFront() -> ConnectionSlots.ID? {
        guard head < ids.count else { return nil }
        let id = ids[head]
        head += 1
        if head == ids.count {
            ids.removeAll(keepingCapacity: true)
            head = 0
        }
        return id
    }

    var needsCompaction: Bool { ids.count - head > 2 * live + 64 }

    /// Keeps the entries `isLive` says are still at this stage, in order.
    mutating func compact(_ isLive: (ConnectionSlots.ID) -> Bool) {
        ids = ids[head...].filter(isLive)
        head = 0
    }
}
