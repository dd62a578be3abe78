import Testing

@testable import FiledropCore

/// The DNS-SD instance name: `mdns-name`, else "filedrop on HOSTNAME", within RFC 6763's
/// 63 bytes; and the two keys that set it.
@Suite struct ServiceAdvertisementTests {
    @Test func theDefaultNamesTheShortHostName() {
        #expect(ServiceAdvertisement.instanceName(configured: nil, hostName: "nas") == "filedrop on nas")
        #expect(ServiceAdvertisement.instanceName(configured: nil, hostName: "nas.example.org") == "filedrop on nas")
    }

    @Test func anUnnamedMachineIsJustFiledrop() {
        #expect(ServiceAdvertisement.instanceName(configured: nil, hostName: "") == "filedrop")
    }

    @Test func theConfiguredNameWins() {
        #expect(ServiceAdvertisement.instanceName(configured: "Lab drop", hostName: "nas") == "Lab drop")
    }

    @Test func aLongHostNameIsCutAt63BytesOnACharacterBoundary() {
        let name = ServiceAdvertisement.instanceName(configured: nil, hostName: String(repeating: "é", count: 60))
        #expect(name.utf8.count == 62)
        #expect(name == "filedrop on " + String(repeating: "é", count: 25))
        let exact = ServiceAdvertisement.instanceName(configured: nil, hostName: String(repeating: "a", count: 80))
        #expect(exact.utf8.count == 63)
    }

    @Test func mdnsIsOnByDefaultAndTurnsOff() throws {
        #expect(Configuration().mdns)
        #expect(Configuration().mdnsName == nil)
        let off = try parse(["--mdns", "off"])
        #expect(off?.mdns == false)
        let environment = try ConfigurationLoader.parse(
            arguments: [], environment: ["FILEDROP_MDNS": "no"],
            readFile: { _ in nil }, fileExists: { _ in false })
        guard case .run(let fromEnvironment) = environment else {
            Issue.record("expected run")
            return
        }
        #expect(!fromEnvironment.mdns)
    }

    @Test func mdnsNameTakesUpTo63Bytes() throws {
        #expect(try parse(["--mdns-name", "Lab drop"])?.mdnsName == "Lab drop")
        #expect(try parse(["--mdns-name", String(repeating: "a", count: 63)])?.mdnsName?.utf8.count == 63)
        #expect(throws: ConfigurationError.self) { try parse(["--mdns-name", String(repeating: "a", count: 64)]) }
        #expect(throws: ConfigurationError.self) { try parse(["--mdns-name", "tab\there"]) }
    }

    private func parse(_ arguments: [String]) throws -> Configuration? {
        guard
            case .run(let configuration) = try ConfigurationLoader.parse(
                arguments: arguments, environment: [:],
                readFile: { _ in nil }, fileExists: { _ in false })
        else { return nil }
        return configuration
    }
}
