import FiledropCore
import FiledropHTTP
import FiledropIO
import FiledropServer

/// The daemon's DNS-SD announcement: works out what to announce for the sockets it serves
/// (`DiscoveryPlan`) and hands it to Avahi's thread (`AvahiPublisher`). `update` and
/// `withdraw` run on the main loop and never block: the D-Bus work happens on Avahi's thread.
final class LANAnnouncement {
    private let plain: [SocketAddress]
    private let secure: [SocketAddress]
    private let publisher: AvahiPublisher?
    private let log: any LogSink
    /// A reload cannot connect to Avahi later (that would block the loop on D-Bus).
    private let offAtStart: Bool
    /// The last reason given for announcing nothing, so a reload or an address change that
    /// changes nothing does not repeat it.
    private var lastReason: String?

    /// Connects to avahi-daemon when there is something to announce (blocks on D-Bus: call
    /// it before the loops run) and announces it.
    init(configuration: Configuration, plain: [SocketAddress], secure: [SocketAddress], log: any LogSink) {
        self.plain = plain
        self.secure = secure
        self.log = log
        offAtStart = !configuration.mdns
        switch Self.plan(configuration, plain: plain, secure: secure) {
        case .loopbackOnly,
            .nothing where offAtStart:
            publisher = nil
        case .advertise, .nothing:
            // Nil when avahi-daemon cannot be reached at all; it said so in one line.
            publisher = AvahiPublisher(log: log)
        }
        update(configuration)
    }

    /// Announces what `configuration` and the sockets call for; again after a reload (name,
    /// ports or `mdns` changed) and when the machine's addresses change.
    func update(_ configuration: Configuration) {
        let reason: String
        switch Self.plan(configuration, plain: plain, secure: secure) {
        case .advertise(let advertisement):
            if let publisher {
                publisher.publish(advertisement)
                lastReason = nil
                return
            }
            // Else Avahi was unreachable at start, and said so then.
            guard offAtStart else { return }
            reason = "mdns was off at start; turning it on takes effect on restart"
        case .nothing(let why), .loopbackOnly(let why):
            publisher?.publish(nil)
            reason = why
        }
        if reason != lastReason {
            log.log(LogEvent(level: configuration.mdns ? .notice : .info, message: "mdns: \(reason)"))
        }
        lastReason = reason
    }

    /// SIGTERM: the announcement goes before the drain, so nobody is sent to a daemon that stops.
    func withdraw() {
        publisher?.publish(nil)
    }

    /// After the loops stopped: goodbye packets, D-Bus closed.
    func stop() {
        publisher?.stop()
    }

    private static func plan(_ configuration: Configuration, plain: [SocketAddress], secure: [SocketAddress]) -> DiscoveryPlan {
        let listeners =
            plain.map { DiscoveryPlan.Listener(secure: false, host: $0.host, port: $0.port) }
            + secure.map { DiscoveryPlan.Listener(secure: true, host: $0.host, port: $0.port) }
        let name = ServiceAdvertisement.instanceName(
            configured: configuration.mdnsName, hostName: ServedNames.hostNames().first ?? "")
        return DiscoveryPlan.make(
            enabled: configuration.mdns, instanceName: name, listeners: listeners,
            interfaces: InterfaceAddresses.withInterfaceIndex())
    }
}
