import Testing

@testable import FiledropCore
@testable import FiledropServer

/// The admission policy alone, fed the counts the server would see; no sockets.
@Suite struct ConnectionAdmissionTests {
    let policy = ConnectionAdmission(maxConnections: 128, maxConnectionsPerClient: 64)

    @Test func belowHalfOnlyThePerAddressCapApplies() {
        #expect(policy.decide(open: 63, heldByClient: 63, addresses: 1) == .admit)
        #expect(policy.decide(open: 63, heldByClient: 64, addresses: 1) == .clientAtCap)
    }

    @Test func theServerLimitComesFirst() {
        #expect(policy.decide(open: 128, heldByClient: 0, addresses: 17) == .serverFull)
        #expect(policy.decide(open: 200, heldByClient: 0, addresses: 1) == .serverFull)
    }

    @Test func underPressureAnAddressGetsAShareOfTheFreeSlots() {
        // 64 open by 8 addresses: 64 free, shared by 8 + 1 -> 7 each.
        #expect(policy.fairShare(open: 64, addresses: 8) == 7)
        #expect(policy.decide(open: 64, heldByClient: 6, addresses: 8) == .admit)
        #expect(policy.decide(open: 64, heldByClient: 7, addresses: 8) == .clientOverShare(share: 7))
    }

    @Test func aNewAddressIsAdmittedWhileAnySlotIsFree() {
        for open in 64..<128 {
            #expect(policy.decide(open: open, heldByClient: 0, addresses: 17) == .admit, "open \(open)")
        }
    }

    @Test(arguments: [(1, 1), (128, 2), (256, 4), (512, 8), (1024, 8), (1_000_000, 8)])
    func floorScalesWithSmallServers(maxConnections: Int, floor: Int) {
        #expect(ConnectionAdmission(maxConnections: maxConnections, maxConnectionsPerClient: 64).floor == floor)
    }

    @Test func theFloorHoldsWhenSharesRoundToNothing() {
        #expect(policy.fairShare(open: 120, addresses: 40) == 2)
        #expect(policy.decide(open: 120, heldByClient: 1, addresses: 40) == .admit)
        #expect(policy.decide(open: 120, heldByClient: 2, addresses: 40) == .clientOverShare(share: 2))
    }

    /// The measured attack: 17 addresses each opening many slow connections, one after
    /// another or interleaved, must leave room for an 18th address.
    @Test(arguments: [(1024, 61, false), (1024, 61, true), (128, 8, false), (128, 8, true), (128, 61, false)])
    func seventeenAddressesLeaveRoomForAnother(maxConnections: Int, wanted: Int, interleaved: Bool) {
        let policy = ConnectionAdmission(maxConnections: maxConnections, maxConnectionsPerClient: 64)
        var held: [Int: Int] = [:]
        var open = 0
        let attempts =
            interleaved
            ? (0..<wanted).flatMap { _ in Array(0..<17) }
            : (0..<17).flatMap { address in Array(repeating: address, count: wanted) }
        for address in attempts
        where policy.decide(open: open, heldByClient: held[address, default: 0], addresses: held.count) == .admit {
            held[address, default: 0] += 1
            open += 1
        }
        #expect(open < maxConnections)
        #expect(policy.decide(open: open, heldByClient: 0, addresses: held.count) == .admit)
    }

    @Test func aPerAddressCapOfEverySlotTurnsSharesOff() {
        let proxied = ConnectionAdmission(maxConnections: 2000, maxConnectionsPerClient: 2000)
        #expect(!proxied.isSharing)
        #expect(proxied.decide(open: 1999, heldByClient: 1999, addresses: 1) == .admit)
        #expect(proxied.decide(open: 2000, heldByClient: 2000, addresses: 1) == .serverFull)
        #expect(ConnectionAdmission(maxConnections: 2000, maxConnectionsPerClient: 1999).isSharing)
    }

    @Test func limitsBelowOneAreTreatedAsOne() {
        let tiny = ConnectionAdmission(maxConnections: 0, maxConnectionsPerClient: 0)
        #expect(tiny.decide(open: 0, heldByClient: 0, addresses: 0) == .admit)
        #expect(tiny.decide(open: 1, heldByClient: 0, addresses: 1) == .serverFull)
    }
}
