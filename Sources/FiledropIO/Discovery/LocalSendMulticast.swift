import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc

/// LocalSend's multicast discovery on the main loop (LocalSend protocol v2.1 §3.1): one
/// non-blocking UDP socket bound to the group's address and port, joined to the group on
/// every IPv4 interface, announcing filedrop and answering others as `LocalSendDiscovery`
/// decides. Every call is a non-blocking recvfrom or sendto; nothing here waits.
///
/// The group is joined per interface (IP_ADD_MEMBERSHIP with the interface index) rather than
/// once on INADDR_ANY, which the kernel ties to the default route's interface only; and our
/// announcement goes out on each interface in turn (IP_MULTICAST_IF). `interfacesChanged`
/// joins the new ones and announces again.
public final class LocalSendMulticast: EventHandler {
    public let descriptor: Int32
    private let group: MulticastGroup
    private let log: any LogSink
    private let clock: () -> UInt64
    private var discovery: LocalSendDiscovery
    /// The IPv4 addresses whose interfaces it announces on; nil for every interface.
    private let onlyAddresses: Set<String>?
    /// Interface indexes the group is joined on.
    private var joined: Set<Int32> = []
    /// The IPv4 addresses those interfaces had at the last look: a new one (another WiFi,
    /// a DHCP lease on the same interface) is a network that has not heard us yet.
    private var addresses: Set<String> = []
    /// One line per kind of refused datagram per minute, however many arrive.
    private var notices = NoticeThrottle(interval: 60_000_000_000, capacity: 16)
    private var buffer: [UInt8]

    /// Datagrams read per wakeup at most: a flood on the group cannot hold the main loop.
    private static let readsPerWakeup = 32

    /// Opens and binds the socket; `HTTPServer.runLocalSendDiscovery` registers it and joins
    /// the group. Fails when another program holds the port without SO_REUSEADDR.
    /// `addresses`: join and announce only on the interfaces that hold one of these (the
    /// receiver listens on them alone); nil for every interface.
    public init(
        group: MulticastGroup, device: LocalSendDevice, log: any LogSink, addresses: Set<String>? = nil,
        clock: @escaping () -> UInt64 = Clock.monotonicNanoseconds
    ) throws(SystemError) {
        self.group = group
        onlyAddresses = addresses
        self.log = log
        self.clock = clock
        discovery = LocalSendDiscovery(device: device)
        buffer = [UInt8](repeating: 0, count: discovery.limits.maxDatagramBytes + 1)
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        descriptor = try syscall("socket(AF_INET, SOCK_DGRAM)") { socket(AF_INET, type, 0) }
        do {
            // The LocalSend app on the same machine listens on the same group and port.
            try setOption(SOL_SOCKET, SO_REUSEADDR, Int32(1), "setsockopt(SO_REUSEADDR)")
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = group.port.bigEndian
            // Bound to the group, not INADDR_ANY: only datagrams sent to it arrive here.
            address.sin_addr.s_addr = group.networkOrderAddress
            try syscall("bind(\(group))") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit {
        close(descriptor)
    }

    /// Joins the group on interfaces that appeared, forgets those that went, and announces
    /// again when an interface or an IPv4 address appeared. Runs on the main loop (the
    /// address watcher's callback, and a reload).
    public func interfacesChanged() {
        let up = InterfaceAddresses.withInterfaceIndex().filter { interface in
            !interface.host.contains(":") && !interface.host.hasPrefix("127.") && onlyAddresses?.contains(interface.host) != false
        }
        let current = Set(up.map(\.interfaceIndex))
        let newAddresses = Set(up.map(\.host))
        defer { addresses = newAddresses }
        for index in joined.subtracting(current) {
            // An interface that went away took its membership with it; one that only lost
            // its IPv4 address still holds it, so drop it (an error means it is gone).
            _ = try? membership(IP_DROP_MEMBERSHIP, index)
        }
        joined.formIntersection(current)
        var added = !newAddresses.isSubset(of: addresses)
        for index in current.subtracting(joined) {
            do {
                try membership(IP_ADD_MEMBERSHIP, index)
                joined.insert(index)
                added = true
            } catch {
                log.log(
                    LogEvent(
                        level: .warning, message: "LocalSend discovery cannot join \(group) on an interface",
                        fields: [("interface", interfaceName(index)), ("error", error.description)]))
            }
        }
        if added { discovery.scheduleAnnouncements(now: clock()) }
    }

    /// filedrop's device changed (a re-issued certificate has a new fingerprint): announced
    /// again, and answered with from now on. Runs on the main loop.
    public func deviceChanged(_ device: LocalSendDevice) {
        discovery.deviceChanged(device, now: clock())
    }

    /// The totals so far.
    public var counters: LocalSendDiscovery.Counters { discovery.counters }

    public func handle(events: UInt32, loop: EventLoop) {
        for _ in 0..<Self.readsPerWakeup {
            var source = sockaddr_in()
            var sourceLength = socklen_t(MemoryLayout<sockaddr_in>.size)
            let result = try? nonBlockingSyscall("recvfrom") {
                buffer.withUnsafeMutableBytes { bytes in
                    withUnsafeMutablePointer(to: &source) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &sourceLength)
                        }
                    }
                }
            }
            guard case .done(let length) = result else { return }
            // The buffer is one byte over the limit: a longer datagram fills it and is refused.
            switch discovery.received(buffer.prefix(length), now: clock()) {
            case .reply(let bytes):
                send(bytes)
            case .ignore(.own), .ignore(.notAnAnnouncement):
                break
            case .ignore(let why):
                note(why, from: source, now: clock())
            }
        }
    }

    /// Sends our announcement when one is due; the main loop's tick calls it.
    func announceIfDue() {
        if let bytes = discovery.announcementDue(now: clock()) { send(bytes) }
    }

    /// Sends to the group once per joined interface. UDP: a full send buffer or a network
    /// that went away loses this datagram, as the network itself could.
    private func send(_ bytes: [UInt8]) {
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_port = group.port.bigEndian
        destination.sin_addr.s_addr = group.networkOrderAddress
        for index in joined.sorted() {
            var request = ip_mreqn()
            request.imr_ifindex = index
            do {
                try setOption(Int32(IPPROTO_IP), IP_MULTICAST_IF, request, "setsockopt(IP_MULTICAST_IF)")
                _ = try nonBlockingSyscall("sendto(\(group))") {
                    bytes.withUnsafeBytes { raw in
                        withUnsafePointer(to: &destination) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                sendto(descriptor, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                            }
                        }
                    }
                }
            } catch {
                if let skipped = notices.note("send", now: clock()) {
                    log.log(
                        LogEvent(
                            level: .debug, message: "LocalSend discovery could not send on an interface",
                            fields: [
                                ("interface", interfaceName(index)), ("error", "\(error)"),
                                ("suppressed", String(skipped)),
                            ]))
                }
            }
        }
    }

    private func note(_ why: LocalSendDiscovery.Ignored, from source: sockaddr_in, now: UInt64) {
        let (key, detail): (String, String) =
            switch why {
            case .oversize: ("oversize", "longer than \(discovery.limits.maxDatagramBytes) bytes")
            case .malformed(let reason): ("malformed", reason)
            case .rateLimited: ("rateLimited", "answered too recently")
            case .own, .notAnAnnouncement: ("", "")
            }
        guard let skipped = notices.note(key, now: now) else { return }
        let client = withUnsafeBytes(of: source.sin_addr.s_addr) { $0.map(String.init).joined(separator: ".") }
        log.log(
            LogEvent(
                level: .debug, message: "LocalSend discovery ignored a datagram",
                fields: [("client", client), ("reason", detail), ("suppressed", String(skipped))]))
    }

    private func membership(_ option: Int32, _ index: Int32) throws(SystemError) {
        var request = ip_mreqn()
        request.imr_multiaddr.s_addr = group.networkOrderAddress
        request.imr_ifindex = index
        try setOption(
            Int32(IPPROTO_IP), option, request,
            option == IP_ADD_MEMBERSHIP ? "setsockopt(IP_ADD_MEMBERSHIP)" : "setsockopt(IP_DROP_MEMBERSHIP)")
    }

    private func setOption<Value>(_ level: Int32, _ name: Int32, _ value: Value, _ call: String) throws(SystemError) {
        var value = value
        try syscall(call) { setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Value>.size)) }
    }

    private func interfaceName(_ index: Int32) -> String {
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(index), &name) != nil else { return String(index) }
        return String(cString: name)
    }
}
