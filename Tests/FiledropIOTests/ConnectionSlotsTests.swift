import Testing

@testable import FiledropCore
@testable import FiledropServer

/// The slot table alone: admissions, evictions and closes as the server would report them,
/// with a clock that is just a number.
@Suite struct ConnectionSlotsTests {
    static func table(max: Int = 8, perClient: Int = 64) -> ConnectionSlots {
        ConnectionSlots(policy: ConnectionAdmission(maxConnections: max, maxConnectionsPerClient: perClient))
    }

    /// Admits and returns the id, failing the test on anything else.
    static func admitted(
        _ table: inout ConnectionSlots, _ client: String, _ stage: ConnectionSlots.Stage,
        owner: Int = 0, now: UInt64 = 0
    ) -> ConnectionSlots.ID? {
        guard case .admit(let id) = table.admit(client: client, stage: stage, owner: owner, now: now) else { return nil }
        return id
    }

    /// Fills every slot of `table` with connections from distinct addresses, all at `stage`.
    static func fill(_ table: inout ConnectionSlots, stage: ConnectionSlots.Stage, from first: Int = 0) -> [ConnectionSlots.ID] {
        var ids: [ConnectionSlots.ID] = []
        while !table.isFull {
            guard
                let id = admitted(
                    &table, "10.0.0.\(first + ids.count)", stage == .committed ? .awaitingHead : stage,
                    now: UInt64(ids.count))
            else { break }
            if stage == .committed { table.advanced(id, to: .committed) }
            ids.append(id)
        }
        return ids
    }

    @Test func belowTheLimitEveryoneIsAdmittedAndNothingIsEvicted() {
        var table = Self.table()
        for n in 0..<8 {
            #expect(Self.admitted(&table, "10.0.0.\(n)", .handshaking) != nil)
        }
        #expect(table.open == 8 && table.isFull && table.evictable == 8)
    }

    @Test func whenFullTheOldestHandshakeMakesRoomForANewcomer() {
        var table = Self.table()
        let flood = Self.fill(&table, stage: .handshaking)
        let outcome = table.admit(client: "192.168.1.5", stage: .awaitingHead, owner: 1, now: 100)
        guard case .admitEvicting(let id, let eviction) = outcome else {
            Issue.record("expected an eviction, got \(outcome)")
            return
        }
        #expect(eviction.victim == flood[0])
        #expect(eviction.stage == .handshaking && eviction.client == "10.0.0.0" && eviction.age == 100)
        #expect(table.isEvicting(flood[0]) && table.stage(of: id) == .awaitingHead)
        // The victim holds its slot until its owner closes it; the newcomer's is promised.
        #expect(table.open == 9 && table.evicting == 1 && table.isFull)
        table.closed(flood[0])
        #expect(table.open == 8 && table.evicting == 0 && table.held(by: "10.0.0.0") == 0)
    }

    @Test func handshakesGoBeforeHeadsAndEachOldestFirst() {
        var table = Self.table(max: 4)
        let head0 = Self.admitted(&table, "10.0.0.1", .awaitingHead, now: 0)!
        let shake1 = Self.admitted(&table, "10.0.0.2", .handshaking, now: 1)!
        let head2 = Self.admitted(&table, "10.0.0.3", .awaitingHead, now: 2)!
        let shake3 = Self.admitted(&table, "10.0.0.4", .handshaking, now: 3)!
        var victims: [ConnectionSlots.ID] = []
        // Newcomers on the plain port: they queue behind the older heads.
        for n in 0..<4 {
            if case .admitEvicting(_, let eviction) = table.admit(
                client: "172.16.0.\(n)", stage: .awaitingHead, owner: 0, now: 10)
            {
                victims.append(eviction.victim)
                table.closed(eviction.victim)
            }
        }
        #expect(victims == [shake1, shake3, head0, head2])
    }

    @Test func aNewHandshakeGoesBeforeAnOldHead() {
        var table = Self.table(max: 2)
        let head = Self.admitted(&table, "10.0.0.1", .awaitingHead, now: 0)!
        _ = Self.admitted(&table, "10.0.0.2", .handshaking, now: 1)!
        guard case .admitEvicting(let newcomer, _) = table.admit(client: "10.0.0.3", stage: .handshaking, owner: 0, now: 2),
            case .admitEvicting(_, let second) = table.admit(client: "10.0.0.4", stage: .awaitingHead, owner: 0, now: 3)
        else {
            Issue.record("no eviction")
            return
        }
        #expect(second.victim == newcomer && second.victim != head)
    }

    @Test func connectionsThatSentAWholeHeadAreNeverEvicted() {
        var table = Self.table()
        _ = Self.fill(&table, stage: .committed)
        #expect(!table.acceptsNewcomers)
        #expect(table.admit(client: "192.168.1.5", stage: .awaitingHead, owner: 0, now: 0) == .refuse(.serverFull))
        #expect(table.open == 8 && table.evicting == 0)
    }

    @Test func aHandshakeThatFinishesStillCountsUntilItsHeadArrives() {
        var table = Self.table(max: 2)
        let a = Self.admitted(&table, "10.0.0.1", .handshaking, now: 0)!
        let b = Self.admitted(&table, "10.0.0.2", .handshaking, now: 1)!
        table.advanced(a, to: .awaitingHead)
        // b is still in its handshake, so it goes first although a is older.
        guard case .admitEvicting(_, let first) = table.admit(client: "10.0.0.3", stage: .handshaking, owner: 0, now: 5) else {
            Issue.record("no eviction")
            return
        }
        #expect(first.victim == b)
        table.closed(b)
        table.advanced(a, to: .committed)
        // a sent its head and the newcomer (still handshaking) is the one left to evict.
        guard case .admitEvicting(_, let second) = table.admit(client: "10.0.0.4", stage: .handshaking, owner: 0, now: 6) else {
            Issue.record("no eviction")
            return
        }
        #expect(second.victim != a && second.client == "10.0.0.3")
    }

    @Test func aVictimThatSendsItsHeadInTimeIsSpared() {
        var table = Self.table(max: 2)
        let a = Self.admitted(&table, "10.0.0.1", .awaitingHead)!
        _ = Self.admitted(&table, "10.0.0.2", .awaitingHead)!
        guard case .admitEvicting(_, let eviction) = table.admit(client: "10.0.0.3", stage: .awaitingHead, owner: 0, now: 1),
            eviction.victim == a
        else {
            Issue.record("a was not chosen")
            return
        }
        table.advanced(a, to: .committed)
        #expect(!table.isEvicting(a) && table.stage(of: a) == .committed)
        // Over the limit by the spared one until something closes; no slot is free.
        #expect(table.open == 3 && table.evicting == 0 && table.isFull)
    }

    @Test func thePerAddressCapStillApplies() {
        var table = Self.table(max: 128, perClient: 2)
        _ = Self.fill(&table, stage: .handshaking)
        // The table is full of evictable connections; an address at its cap gets no eviction.
        var held = 0
        for _ in 0..<5 {
            if case .admitEvicting = table.admit(client: "172.16.0.1", stage: .handshaking, owner: 0, now: 1) { held += 1 }
        }
        #expect(held == 2)
        #expect(table.admit(client: "172.16.0.1", stage: .handshaking, owner: 0, now: 1) == .refuse(.clientAtCap))
    }

    @Test func aFullServerKeepsASlotForANewAddressWhateverTheFloodHolds() {
        // 100 addresses x 64 unfinished handshakes against 1,024 slots, one address after
        // another (the order fair shares yield most to); the victims close before the next
        // one arrives, as their loops do.
        var table = Self.table(max: 1024, perClient: 64)
        var refused = 0
        for address in 0..<100 {
            for round in 0..<64 {
                switch table.admit(
                    client: "127.0.\(address / 50).\(address % 50 + 2)", stage: .handshaking, owner: 0,
                    now: UInt64(address * 64 + round))
                {
                case .admit: break
                case .admitEvicting(_, let eviction): table.closed(eviction.victim)
                case .refuse: refused += 1
                }
            }
        }
        #expect(table.open == 1024 && refused > 0)
        for n in 0..<20 {
            let outcome = table.admit(client: "192.168.1.\(n)", stage: .awaitingHead, owner: 0, now: 10_000)
            guard case .admitEvicting(let id, let eviction) = outcome else {
                Issue.record("newcomer \(n) got \(outcome)")
                return
            }
            #expect(eviction.stage == .handshaking)
            table.closed(eviction.victim)
            table.advanced(id, to: .committed)
        }
    }

    @Test func queuesStayProportionalToWhatIsOpen() {
        // Connections that move on leave stale entries; many thousands of them must not pile up.
        var table = Self.table(max: 64)
        for n in 0..<10_000 {
            let id = Self.admitted(&table, "10.0.\(n % 200 / 100).\(n % 100)", .handshaking, now: UInt64(n))!
            table.advanced(id, to: .awaitingHead)
            table.advanced(id, to: .committed)
            table.closed(id)
        }
        #expect(table.open == 0 && table.evictable == 0 && table.held(by: "10.0.0.1") == 0)
        #expect(table.acceptsNewcomers)
    }

    @Test func closingAnUnknownOrClosedConnectionChangesNothing() {
        var table = Self.table()
        let id = Self.admitted(&table, "10.0.0.1", .awaitingHead)!
        table.closed(id)
        table.closed(id)
        table.advanced(id, to: .committed)
        #expect(table.open == 0 && table.evicting == 0 && table.evictable == 0)
    }
}
