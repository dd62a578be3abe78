import Testing

@testable import FiledropCore

/// What the daemon announces over mDNS for the sockets it serves: the instance name, one
/// service per scheme, the interfaces, and nothing for loopback.
@Suite struct DiscoveryPlanTests {
    static let interfaces = [
        DiscoveryPlan.InterfaceAddress(host: "127.0.0.1", interfaceIndex: 1),
        DiscoveryPlan.InterfaceAddress(host: "::1", interfaceIndex: 1),
        DiscoveryPlan.InterfaceAddress(host: "192.168.1.5", interfaceIndex: 2),
        DiscoveryPlan.InterfaceAddress(host: "fd00::5", interfaceIndex: 2),
        DiscoveryPlan.InterfaceAddress(host: "10.0.0.7", interfaceIndex: 3),
    ]

    static func plan(_ listeners: [DiscoveryPlan.Listener], enabled: Bool = true) -> DiscoveryPlan {
        DiscoveryPlan.make(enabled: enabled, instanceName: "filedrop on nas", listeners: listeners, interfaces: interfaces)
    }

    static func plain(_ host: String, _ port: UInt16) -> DiscoveryPlan.Listener {
        DiscoveryPlan.Listener(secure: false, host: host, port: port)
    }

    static func secure(_ host: String, _ port: UInt16) -> DiscoveryPlan.Listener {
        DiscoveryPlan.Listener(secure: true, host: host, port: port)
    }

    @Test func theDefaultSocketsAnnounceHTTPAndHTTPSEverywhereWithPathSlash() {
        let expected = ServiceAdvertisement(
            instanceName: "filedrop on nas",
            services: [
                AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: nil, family: .any),
                AdvertisedService(type: "_https._tcp", port: 8443, interfaceIndex: nil, family: .any),
            ])
        #expect(Self.plan([Self.plain("::", 8080), Self.secure("::", 8443)]) == .advertise(expected))
        #expect(expected.txt == ["path=/"])
    }

    @Test func withoutTLSOnlyHTTPIsAnnounced() {
        guard case .advertise(let advertisement) = Self.plan([Self.plain("::", 8080)]) else {
            Issue.record("expected an advertisement")
            return
        }
        #expect(advertisement.services.map(\.type) == ["_http._tcp"])
    }

    @Test func httpModeOffAnnouncesOnlyHTTPS() {
        guard case .advertise(let advertisement) = Self.plan([Self.secure("::", 8443)]) else {
            Issue.record("expected an advertisement")
            return
        }
        #expect(advertisement.services == [AdvertisedService(type: "_https._tcp", port: 8443, interfaceIndex: nil, family: .any)])
    }

    @Test func aSpecificAddressIsAnnouncedOnItsInterfaceAndFamily() {
        #expect(
            Self.plan([Self.plain("192.168.1.5", 8080), Self.plain("fd00::5", 8080), Self.plain("10.0.0.7", 8080)])
                == .advertise(
                    ServiceAdvertisement(
                        instanceName: "filedrop on nas",
                        services: [
                            AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: 2, family: .ipv4),
                            AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: 2, family: .ipv6),
                            AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: 3, family: .ipv4),
                        ])))
    }

    @Test func anIPv4WildcardIsAnnouncedOverIPv4Only() {
        #expect(
            Self.plan([Self.plain("0.0.0.0", 8080)])
                == .advertise(
                    ServiceAdvertisement(
                        instanceName: "filedrop on nas",
                        services: [
                            AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: nil, family: .ipv4)
                        ])))
    }

    @Test func loopbackListenersAreLeftOutBesideOthers() {
        #expect(
            Self.plan([Self.plain("127.0.0.1", 8080), Self.plain("192.168.1.5", 8080)])
                == .advertise(
                    ServiceAdvertisement(
                        instanceName: "filedrop on nas",
                        services: [
                            AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: 2, family: .ipv4)
                        ])))
    }

    @Test(arguments: [["127.0.0.1"], ["::1"], ["127.0.0.1", "::1"], ["127.1.2.3"]])
    func loopbackOnlyIsNeverAnnouncedAndTheLogSaysWhy(hosts: [String]) {
        guard case .loopbackOnly(let reason) = Self.plan(hosts.map { Self.plain($0, 8080) }) else {
            Issue.record("expected loopbackOnly")
            return
        }
        #expect(reason.contains("loopback only"))
        #expect(reason.contains(hosts[0].contains(":") ? "[\(hosts[0])]:8080" : "\(hosts[0]):8080"))
    }

    @Test func anAddressNoInterfaceHasWaitsForOne() {
        guard case .nothing(let reason) = Self.plan([Self.plain("192.168.9.9", 8080)]) else {
            Issue.record("expected nothing")
            return
        }
        #expect(reason.contains("no listening address is on an interface"))
    }

    @Test func mdnsOffAnnouncesNothing() {
        guard case .nothing(let reason) = Self.plan([Self.plain("::", 8080)], enabled: false) else {
            Issue.record("expected nothing")
            return
        }
        #expect(reason.contains("mdns = off"))
    }

    @Test func aWildcardCoversSpecificListenersOfTheSameScheme() {
        #expect(
            Self.plan([Self.plain("192.168.1.5", 8080), Self.plain("::", 8080)])
                == .advertise(
                    ServiceAdvertisement(
                        instanceName: "filedrop on nas",
                        services: [
                            AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: nil, family: .any)
                        ])))
    }

    /// DNS-SD gives an instance one port per type: the first listener's.
    @Test func aSecondPortOfOneSchemeIsLeftOut() {
        #expect(
            Self.plan([Self.plain("::", 8080), Self.plain("::", 9090), Self.secure("::", 8443)])
                == .advertise(
                    ServiceAdvertisement(
                        instanceName: "filedrop on nas",
                        services: [
                            AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: nil, family: .any),
                            AdvertisedService(type: "_https._tcp", port: 8443, interfaceIndex: nil, family: .any),
                        ])))
    }

    @Test func aSocketActivatedLoopbackPortAfterALANOneKeepsTheLANPort() {
        #expect(
            Self.plan([Self.plain("127.0.0.1", 80), Self.plain("::", 8080)])
                == .advertise(
                    ServiceAdvertisement(
                        instanceName: "filedrop on nas",
                        services: [
                            AdvertisedService(type: "_http._tcp", port: 8080, interfaceIndex: nil, family: .any)
                        ])))
    }
}
