import FiledropCore
import Testing

/// What filedrop answers to what datagram on LocalSend's group (protocol v2.1 §3.1), and when
/// it announces itself; no socket, the clock is a number.
struct LocalSendDiscoveryTests {
    static let own = LocalSendDevice.filedrop(alias: "filedrop on box", fingerprint: "AB12", port: 53317)
    static let second: UInt64 = 1_000_000_000

    /// The specification's announcement example (§3.1), with a fingerprint of our choosing.
    static func announcement(fingerprint: String = "random string", announce: Bool? = true) -> [UInt8] {
        let flag = announce.map { ",\n  \"announce\": \($0)" } ?? ""
        return Array(
            """
            {
              "alias": "Nice Orange",
              "version": "2.0",
              "deviceModel": "Samsung",
              "deviceType": "mobile",
              "fingerprint": "\(fingerprint)",
              "port": 53317,
              "protocol": "https",
              "download": true\(flag)
            }
            """.utf8)
    }

    @Test func anAnnouncementIsAnsweredWithOurDeviceAndAnnounceFalse() throws {
        var discovery = LocalSendDiscovery(device: Self.own)
        let answer = discovery.received(Self.announcement(), now: 0)
        guard case .reply(let bytes) = answer else {
            Issue.record("expected a reply, got \(answer)")
            return
        }
        #expect(bytes == Self.own.json(announce: false))
        let (device, announce) = try LocalSendDevice.parse(bytes)
        #expect(device == Self.own)
        #expect(announce == false)
        #expect(discovery.counters.answered == 1)
    }

    @Test(arguments: [false, nil] as [Bool?])
    func anAnswerIsNotAnswered(announce: Bool?) {
        var discovery = LocalSendDiscovery(device: Self.own)
        #expect(discovery.received(Self.announcement(announce: announce), now: 0) == .ignore(.notAnAnnouncement))
    }

    @Test func ourOwnAnnouncementLoopedBackIsIgnored() {
        var discovery = LocalSendDiscovery(device: Self.own)
        #expect(discovery.received(Self.own.json(announce: true), now: 0) == .ignore(.own))
        #expect(discovery.received(Self.announcement(fingerprint: "AB12"), now: 0) == .ignore(.own))
        #expect(discovery.counters.own == 2)
    }

    @Test(arguments: [
        "", "{", "[]", "null", "{\"alias\": \"x\"}", "\u{FF}\u{FE}", "{\"alias\":\"x\",\"version\":\"2.0\",\"port\":\"53317\"}",
    ])
    func malformedDatagramsAreIgnoredAndCounted(text: String) {
        var discovery = LocalSendDiscovery(device: Self.own)
        guard case .ignore(.malformed) = discovery.received(Array(text.utf8), now: 0) else {
            Issue.record("\(text.debugDescription) was not refused as malformed")
            return
        }
        #expect(discovery.counters.malformed == 1)
        #expect(discovery.counters.answered == 0)
    }

    @Test func anAnnouncementWithoutAFingerprintCannotBeToldFromOurOwn() {
        var discovery = LocalSendDiscovery(device: Self.own)
        let bytes = Array(#"{"alias":"x","version":"2.0","announce":true}"#.utf8)
        #expect(discovery.received(bytes, now: 0) == .ignore(.malformed("fingerprint is missing")))
    }

    @Test func theSizeLimitIsExactToTheByte() {
        let limits = LocalSendDiscovery.Limits(maxDatagramBytes: 300)
        var base = Self.announcement()
        base.removeLast()  // the closing brace; padding goes before it
        let padding = 300 - base.count - 1
        let atLimit = base + Array(repeating: UInt8(ascii: " "), count: padding) + [UInt8(ascii: "}")]
        #expect(atLimit.count == 300)
        var discovery = LocalSendDiscovery(device: Self.own, limits: limits)
        #expect(discovery.received(atLimit, now: 0) != .ignore(.oversize))
        let overLimit = base + Array(repeating: UInt8(ascii: " "), count: padding + 1) + [UInt8(ascii: "}")]
        #expect(discovery.received(overLimit, now: 10 * Self.second) == .ignore(.oversize))
        #expect(discovery.counters.oversize == 1)
    }

    @Test func oneDeviceIsAnsweredOncePerInterval() {
        var discovery = LocalSendDiscovery(device: Self.own)
        let interval = discovery.limits.answerInterval
        #expect(discovery.received(Self.announcement(), now: 0) != .ignore(.rateLimited))
        #expect(discovery.received(Self.announcement(), now: interval - 1) == .ignore(.rateLimited))
        #expect(discovery.received(Self.announcement(fingerprint: "other"), now: interval - 1) != .ignore(.rateLimited))
        #expect(discovery.received(Self.announcement(), now: interval) != .ignore(.rateLimited))
        #expect(discovery.counters.rateLimited == 1)
    }

    @Test func aFloodOfDevicesEmptiesTheBucketAndItRefills() {
        let limits = LocalSendDiscovery.Limits(answerBurst: 4, answerRefill: Self.second)
        var discovery = LocalSendDiscovery(device: Self.own, limits: limits)
        let answered = (0..<100).filter { index in
            discovery.received(Self.announcement(fingerprint: "flood \(index)"), now: 0) != .ignore(.rateLimited)
        }
        #expect(answered.count == 4)
        #expect(discovery.received(Self.announcement(fingerprint: "late"), now: Self.second - 1) == .ignore(.rateLimited))
        #expect(discovery.received(Self.announcement(fingerprint: "late"), now: Self.second) != .ignore(.rateLimited))
        // However long the quiet, the bucket holds `answerBurst` tokens at most.
        let later = (0..<100).filter { index in
            discovery.received(Self.announcement(fingerprint: "after \(index)"), now: 3600 * Self.second) != .ignore(.rateLimited)
        }
        #expect(later.count == 4)
    }

    @Test func announcementsGoAtStartAndTwiceMoreThenStop() throws {
        var discovery = LocalSendDiscovery(device: Self.own)
        #expect(discovery.announcementDue(now: 0) == nil)
        discovery.scheduleAnnouncements(now: 5 * Self.second)
        var sent: [UInt64] = []
        for tick in stride(from: 5 * Self.second, through: 30 * Self.second, by: Int(Self.second / 4)) {
            if let bytes = discovery.announcementDue(now: tick) {
                #expect(bytes == Self.own.json(announce: true))
                sent.append(tick - 5 * Self.second)
            }
        }
        #expect(sent == LocalSendDiscovery.announcementDelays)
        #expect(discovery.counters.announced == 3)
        let (_, announce) = try LocalSendDevice.parse(Self.own.json(announce: true))
        #expect(announce)
    }

    @Test func aLateTickSendsOneAnnouncementNotThePileUp() {
        var discovery = LocalSendDiscovery(device: Self.own)
        discovery.scheduleAnnouncements(now: 0)
        #expect(discovery.announcementDue(now: 10 * Self.second) != nil)
        #expect(discovery.announcementDue(now: 10 * Self.second) == nil)
    }

    @Test func anAddressChangeStartsANewBurst() {
        var discovery = LocalSendDiscovery(device: Self.own)
        discovery.scheduleAnnouncements(now: 0)
        _ = discovery.announcementDue(now: 0)
        discovery.scheduleAnnouncements(now: Self.second / 2)
        #expect(discovery.announcementDue(now: Self.second / 2) != nil)
    }

    @Test func aNewCertificateIsAnnouncedAndTheOldFingerprintIsStillOurs() {
        var discovery = LocalSendDiscovery(device: Self.own)
        var renewed = Self.own
        renewed.fingerprint = "CD34"
        discovery.deviceChanged(renewed, now: 0)
        #expect(discovery.announcementDue(now: 0) == renewed.json(announce: true))
        #expect(discovery.received(Self.announcement(fingerprint: "AB12"), now: 0) == .ignore(.own))
        #expect(discovery.received(Self.announcement(fingerprint: "CD34"), now: 0) == .ignore(.own))
        #expect(discovery.received(Self.announcement(fingerprint: "EF56"), now: 0) == .reply(renewed.json(announce: false)))
    }

    @Test func theSameDeviceAgainStartsNoBurst() {
        var discovery = LocalSendDiscovery(device: Self.own)
        discovery.deviceChanged(Self.own, now: 0)
        #expect(discovery.announcementDue(now: 0) == nil)
    }
}
