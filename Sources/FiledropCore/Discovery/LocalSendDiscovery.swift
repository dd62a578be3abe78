/// What filedrop says on LocalSend's multicast group, and when (LocalSend protocol v2.1 §3.1):
/// its own announcement (`announce: true`) a few times at start and after the interfaces
/// change, and an answer (`announce: false`) to another device's announcement. Sans-I/O: a
/// datagram and the time go in, what to send comes out; `LocalSendMulticast` in FiledropIO
/// owns the socket.
///
/// The answer goes back over UDP to the group, the protocol's fallback; its first choice, an
/// HTTPS `register` to the announcer, is not made (see the README's LocalSend section), so
/// nothing here ever connects anywhere. Bounded against a flood on the group: a datagram
/// over `Limits.maxDatagramBytes` is not parsed, each device is answered at most once per
/// `Limits.answerInterval`, and all answers share a token bucket.
public struct LocalSendDiscovery: Sendable {
    public struct Limits: Sendable, Equatable {
        /// An announcement is a few hundred bytes; the group is link-local and one Ethernet
        /// frame carries 1472, so anything near this is not a LocalSend device talking.
        public var maxDatagramBytes: Int
        /// A device's start-up burst (several announcements within seconds) gets one answer.
        public var answerInterval: UInt64
        /// Answers in a row before the bucket is empty, and how often one token comes back.
        public var answerBurst: Int
        public var answerRefill: UInt64

        public init(
            maxDatagramBytes: Int = 4096, answerInterval: UInt64 = 2_000_000_000,
            answerBurst: Int = 8, answerRefill: UInt64 = 250_000_000
        ) {
            self.maxDatagramBytes = maxDatagramBytes
            self.answerInterval = answerInterval
            self.answerBurst = answerBurst
            self.answerRefill = answerRefill
        }
    }

    /// What to do with one datagram.
    public enum Answer: Sendable, Equatable {
        /// Send these bytes (our device, `announce: false`) to the group.
        case reply([UInt8])
        case ignore(Ignored)
    }

    /// Why a datagram gets no answer; each is counted.
    public enum Ignored: Sendable, Equatable {
        /// Longer than `maxDatagramBytes`: not parsed.
        case oversize
        /// Not a LocalSend device body; the sentence says what was wrong.
        case malformed(String)
        /// Our own announcement, looped back (same fingerprint).
        case own
        /// Another device's answer (`announce` false or absent): §3.1 answers announcements only.
        case notAnAnnouncement
        /// That device was answered within `answerInterval`, or the bucket is empty.
        case rateLimited
    }

    /// Totals since start, for a debug line and the tests.
    public struct Counters: Sendable, Equatable {
        public var received = 0
        public var answered = 0
        public var oversize = 0
        public var malformed = 0
        public var own = 0
        public var notAnAnnouncement = 0
        public var rateLimited = 0
        public var announced = 0

        public init() {}
    }

    /// LocalSend's apps repeat their start-up announcement because multicast over WiFi is
    /// lossy; these are the delays after start (or after an address change) at which ours goes.
    public static let announcementDelays: [UInt64] = [0, 1_000_000_000, 3_000_000_000]

    public let limits: Limits
    public private(set) var counters = Counters()
    private var ownFingerprint: String
    /// The fingerprint before the last certificate change: our own announcements made with
    /// it may still be looped back for a moment, and are ours all the same.
    private var formerFingerprint: String?
    private var announcement: [UInt8]
    private var reply: [UInt8]
    /// When each device (by fingerprint) was last answered. Only answers add to it, and the
    /// bucket limits those, so it holds a handful of entries younger than `answerInterval`.
    private var lastAnswered: [String: UInt64] = [:]
    private var tokens: Int
    private var lastRefill: UInt64?
    /// When the pending announcements are due, earliest first.
    private var due: [UInt64] = []

    public init(device: LocalSendDevice, limits: Limits = Limits()) {
        self.limits = limits
        ownFingerprint = device.fingerprint
        announcement = device.json(announce: true)
        reply = device.json(announce: false)
        tokens = limits.answerBurst
    }

    /// Our certificate changed (`tls = auto` re-issues it when the addresses change): from now
    /// on we announce and answer with the new fingerprint, starting with a new burst, since
    /// devices that knew the old one see a new device (§2).
    public mutating func deviceChanged(_ device: LocalSendDevice, now: UInt64) {
        guard device.json(announce: true) != announcement else { return }
        if device.fingerprint != ownFingerprint { formerFingerprint = ownFingerprint }
        ownFingerprint = device.fingerprint
        announcement = device.json(announce: true)
        reply = device.json(announce: false)
        scheduleAnnouncements(now: now)
    }

    /// Schedules the announcement burst from `now`: at start, and when an address appears
    /// (a new network has devices that never heard us).
    public mutating func scheduleAnnouncements(now: UInt64) {
        due = Self.announcementDelays.map { now + $0 }
    }

    /// Our announcement when one is due at `now` (at most one per call: a late tick sends the
    /// next, not all that piled up).
    public mutating func announcementDue(now: UInt64) -> [UInt8]? {
        guard let first = due.first, first <= now else { return nil }
        due.removeAll { $0 <= now }
        counters.announced += 1
        return announcement
    }

    /// The answer to one datagram that arrived on the group at `now`.
    public mutating func received(_ datagram: some Collection<UInt8>, now: UInt64) -> Answer {
        counters.received += 1
        let answer = decide(datagram, now: now)
        switch answer {
        case .reply: counters.answered += 1
        case .ignore(.oversize): counters.oversize += 1
        case .ignore(.malformed): counters.malformed += 1
        case .ignore(.own): counters.own += 1
        case .ignore(.notAnAnnouncement): counters.notAnAnnouncement += 1
        case .ignore(.rateLimited): counters.rateLimited += 1
        }
        return answer
    }

    private mutating func decide(_ datagram: some Collection<UInt8>, now: UInt64) -> Answer {
        guard datagram.count <= limits.maxDatagramBytes else { return .ignore(.oversize) }
        let device: LocalSendDevice
        let announce: Bool
        do {
            (device, announce) = try LocalSendDevice.parse(datagram)
        } catch {
            return .ignore(.malformed(error.reason))
        }
        // §2: the fingerprint is what tells a device from itself; without one we cannot.
        guard !device.fingerprint.isEmpty else { return .ignore(.malformed("fingerprint is missing")) }
        guard device.fingerprint != ownFingerprint, device.fingerprint != formerFingerprint else { return .ignore(.own) }
        // §3.1: "A response is only triggered when announce is true."
        guard announce else { return .ignore(.notAnAnnouncement) }
        if let last = lastAnswered[device.fingerprint], now < last + limits.answerInterval {
            return .ignore(.rateLimited)
        }
        refill(now: now)
        guard tokens > 0 else { return .ignore(.rateLimited) }
        tokens -= 1
        forgetAnsweredBefore(now)
        lastAnswered[device.fingerprint] = now
        return .reply(reply)
    }

    private mutating func refill(now: UInt64) {
        guard let last = lastRefill else {
            lastRefill = now
            return
        }
        guard now > last else { return }
        let earned = (now - last) / limits.answerRefill
        guard earned > 0 else { return }
        tokens = min(limits.answerBurst, tokens + Int(min(earned, UInt64(limits.answerBurst))))
        lastRefill = last + earned * limits.answerRefill
    }

    private mutating func forgetAnsweredBefore(_ now: UInt64) {
        guard lastAnswered.count >= limits.answerBurst * 4 else { return }
        lastAnswered = lastAnswered.filter { now < $0.value + limits.answerInterval }
    }
}
