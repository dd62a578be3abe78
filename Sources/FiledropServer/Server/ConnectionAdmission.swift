/// Decides whether a newly accepted connection may take one of the server's slots, so that a
/// handful of client addresses cannot hold all of them and lock every other client out.
///
/// Three bounds, checked in order:
/// 1. The server's total, `maxConnections`.
/// 2. The per-address cap, `maxConnectionsPerClient`, which always applies.
/// 3. Under pressure (at least half the slots taken), a fair share of what is still free: an
///    address may open another connection only while it holds fewer than
///    `max(floor, free / (addresses + 1))`, where `addresses` are those holding connections.
///
/// The share is of the free slots, not of all of them: addresses that came early and hold
/// more than a share keep what they have but cannot grow, and each later one grows only into
/// a part of what is left, so the free room shrinks by a fraction per address instead of
/// running out. The `+ 1` keeps a part for an address not seen yet. With 17 addresses each
/// wanting 61 of 1,024 slots, 287 or more stay free (whether they connect one after another
/// or interleaved); with 17 wanting 8 of 128, 36 or more. The floor is what one browser needs for a page and a few transfers at once
/// (8), lowered on small servers to `maxConnections / 64` (at least 1) so that filling the
/// half that pressure guards takes at least 32 addresses at the floor.
///
/// A per-address cap of `maxConnections` or more turns fair shares off: the operator says one
/// address may hold every slot, as a reverse proxy in front of the server does.
public struct ConnectionAdmission: Sendable, Equatable {
    public enum Decision: Sendable, Equatable {
        case admit
        /// Every slot is taken.
        case serverFull
        /// The address holds `maxConnectionsPerClient` already.
        case clientAtCap
        /// The server is under pressure and the address holds its fair share (`share`) already.
        case clientOverShare(share: Int)
    }

    public let maxConnections: Int
    public let maxConnectionsPerClient: Int

    public init(maxConnections: Int, maxConnectionsPerClient: Int) {
        self.maxConnections = max(1, maxConnections)
        self.maxConnectionsPerClient = max(1, maxConnectionsPerClient)
    }

    /// The fewest connections fairness lets an address hold (the per-address cap may be lower).
    public var floor: Int { min(8, max(1, maxConnections / 64)) }

    /// Whether fair shares apply at all (see the type's comment).
    public var isSharing: Bool { maxConnectionsPerClient < maxConnections }

    /// Whether the server is full enough for fair shares to apply.
    public func isUnderPressure(open: Int) -> Bool { open * 2 >= maxConnections }

    /// The most connections one address may hold while `open` slots are taken by `addresses`
    /// distinct addresses (the per-address cap aside).
    public func fairShare(open: Int, addresses: Int) -> Int {
        let free = max(0, maxConnections - open)
        return max(floor, free / (max(0, addresses) + 1))
    }

    /// `open`: connections the server holds now; `heldByClient`: those of the new connection's
    /// address; `addresses`: distinct addresses holding at least one.
    public func decide(open: Int, heldByClient: Int, addresses: Int) -> Decision {
        if open >= maxConnections { return .serverFull }
        if heldByClient >= maxConnectionsPerClient { return .clientAtCap }
        guard isSharing, isUnderPressure(open: open) else { return .admit }
        let share = fairShare(open: open, addresses: addresses)
        return heldByClient < share ? .admit : .clientOverShare(share: share)
    }
}
