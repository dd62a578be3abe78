import Glibc
import Testing

@testable import FiledropIO

/// What the `tls = auto` certificate must cover: normalized so that equal means "the same
/// certificate will do", and read from the interfaces as they are now.
@Suite struct ServedNamesTests {
    @Test func namesAreNormalizedSortedAndSplitFromAddresses() {
        let names = ServedNames(names: [
            "NAS.Local.", "localhost", "nas.local", "[::1]", "::0:1", "192.168.1.20",
            "fd00:0::3", "files.home", "", ".",
        ])
        #expect(names.dnsNames == ["files.home", "localhost", "nas.local"])
        #expect(names.ipAddresses == ["192.168.1.20", "::1", "fd00::3"])
        #expect(names == ServedNames(names: ["files.home", "fd00::3", "::1", "nas.local", "192.168.1.20", "localhost"]))
        #expect(names != ServedNames(names: ["files.home", "fd00::3", "::1", "nas.local", "192.168.1.21", "localhost"]))
        #expect(names.description == "files.home, localhost, nas.local, 192.168.1.20, ::1, fd00::3")
    }

    @Test func theMachineAsItIsNow() {
        let names = ServedNames.current(allowedHosts: ["Files.Home"])
        #expect(names.dnsNames.contains("localhost"))
        #expect(names.dnsNames.contains("files.home"))
        for name in ServedNames.hostNames() {
            #expect(names.dnsNames.contains(name.lowercased()))
        }
        #expect(ServedNames.hostNames().contains { $0.hasSuffix(".local") })
        #expect(names.ipAddresses.contains("127.0.0.1"))
        #expect(names.ipAddresses.allSatisfy { !$0.lowercased().hasPrefix("fe8") && !$0.contains("%") })
        for address in InterfaceAddresses.lan() {
            #expect(names.ipAddresses.contains(address.host))
        }
        // Every name is one the CA will put in a certificate.
        #expect(names.dnsNames.allSatisfy(LocalCertificateAuthority.isDNSName))
    }

    /// In a namespace of the test's own: the loopback addresses, then a newly added address,
    /// then not once removed. A link-local IPv6 address never shows.
    @Test(.timeLimit(.minutes(1))) func aNewAddressIsServed() throws {
        guard let namespace = TestNetworkNamespace.make(for: "aNewAddressIsServed") else { return }
        let before = try namespace.onThreadInside { ServedNames.current(allowedHosts: []) }
        #expect(before.ipAddresses.contains("127.0.0.1"))
        #expect(!before.ipAddresses.contains("10.213.0.1"))
        try #require(namespace.ip(["address", "add", "10.213.0.1/32", "dev", "lo"]).status == 0)
        try #require(namespace.ip(["address", "add", "fd00:213::1/128", "dev", "lo", "nodad"]).status == 0)
        try #require(namespace.ip(["address", "add", "fe80::213/64", "dev", "lo", "nodad"]).status == 0)
        let after = try namespace.onThreadInside { ServedNames.current(allowedHosts: []) }
        #expect(after.ipAddresses.contains("10.213.0.1"))
        #expect(after.ipAddresses.contains("fd00:213::1"))
        #expect(!after.ipAddresses.contains("fe80::213"))
        #expect(after != before)
        try #require(namespace.ip(["address", "delete", "10.213.0.1/32", "dev", "lo"]).status == 0)
        try #require(namespace.ip(["address", "delete", "fd00:213::1/128", "dev", "lo"]).status == 0)
        let removed = try namespace.onThreadInside { ServedNames.current(allowedHosts: []) }
        #expect(!removed.ipAddresses.contains("10.213.0.1"))
        #expect(removed == before)
    }
}
