/// Which listeners are worth announcing, and on which interfaces: pure, so the rules are
/// tested without Avahi. A wildcard listener (`[::]`, `0.0.0.0`) is announced on every
/// interface; a specific address on the interface that has it; loopback never (nobody else
/// can reach 127.0.0.1 or ::1, so announcing it would only mislead).
public enum DiscoveryPlan: Sendable, Equatable {
    case advertise(ServiceAdvertisement)
    /// Nothing to announce now (off, or no listening address on an interface yet), and the
    /// sentence the log says why in.
    case nothing(reason: String)
    /// Every listener is on loopback: nothing to announce for as long as these sockets serve.
    case loopbackOnly(reason: String)

    /// A bound listening socket, as the I/O layer reports it.
    public struct Listener: Sendable, Equatable {
        public var secure: Bool
        /// The address as printed (`::`, `0.0.0.0`, `192.168.1.5`, `fd00::5`), no port.
        public var host: String
        public var port: UInt16

        public init(secure: Bool, host: String, port: UInt16) {
            self.secure = secure
            self.host = host
            self.port = port
        }
    }

    /// One address of one of the machine's interfaces (getifaddrs).
    public struct InterfaceAddress: Sendable, Equatable {
        public var host: String
        public var interfaceIndex: Int32

        public init(host: String, interfaceIndex: Int32) {
            self.host = host
            self.interfaceIndex = interfaceIndex
        }
    }

    /// One service per scheme: DNS-SD gives an instance one port per type, so the first
    /// listener of a scheme sets it and others of that scheme on other ports are left out.
    public static func make(
        enabled: Bool, instanceName: String, listeners: [Listener],
        interfaces: [InterfaceAddress]
    ) -> DiscoveryPlan {
        guard enabled else { return .nothing(reason: "turned off (mdns = off): not advertised on the LAN") }
        var services: [AdvertisedService] = []
        var loopback: [String] = []
        for secure in [false, true] {
            let type = secure ? AdvertisedService.httpsType : AdvertisedService.httpType
            var port: UInt16?
            var scopes: [AdvertisedService] = []
            for listener in listeners where listener.secure == secure {
                if isLoopback(listener.host) {
                    loopback.append(
                        listener.host.contains(":") ? "[\(listener.host)]:\(listener.port)" : "\(listener.host):\(listener.port)")
                    continue
                }
                if let port, port != listener.port { continue }
                let family: AdvertisedFamily = listener.host == "::" ? .any : listener.host.contains(":") ? .ipv6 : .ipv4
                let index: Int32?
                if isWildcard(listener.host) {
                    index = nil
                } else if let owner = interfaces.first(where: { $0.host == listener.host }) {
                    index = owner.interfaceIndex
                } else {
                    continue
                }
                port = listener.port
                let service = AdvertisedService(type: type, port: listener.port, interfaceIndex: index, family: family)
                if !scopes.contains(service) { scopes.append(service) }
            }
            // Everywhere on every family covers the rest (Avahi refuses a name twice on one interface).
            if let everywhere = scopes.first(where: { $0.interfaceIndex == nil && $0.family == .any }) {
                scopes = [everywhere]
            }
            services += scopes
        }
        guard !services.isEmpty else {
            if !loopback.isEmpty && loopback.count == listeners.count {
                return .loopbackOnly(
                    reason: "listening on loopback only (\(loopback.joined(separator: ", "))), "
                        + "which no other device can reach: not advertised on the LAN")
            }
            return .nothing(reason: "no listening address is on an interface of this machine: not advertised on the LAN")
        }
        return .advertise(ServiceAdvertisement(instanceName: instanceName, services: services))
    }

    private static func isWildcard(_ host: String) -> Bool {
        host == "::" || host == "0.0.0.0" || host.isEmpty
    }

    /// 127.0.0.0/8 and ::1.
    private static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host.hasPrefix("127.")
    }
}
