import Testing

@testable import FiledropCore

/// The device body of LocalSend protocol v2.1 §3 and §6.1, both ways.
@Suite struct LocalSendDeviceTests {
    @Test func filedropIsAHeadlessHTTPSDeviceWithoutDownloads() throws {
        let device = LocalSendDevice.filedrop(alias: "filedrop on nas", fingerprint: "ab12", port: 53317)
        let value = try JSONValue.parse(device.json(), maxBytes: 4096)
        #expect(
            value
                == .object([
                    "alias": .string("filedrop on nas"), "version": .string("2.1"), "deviceModel": .string("filedrop"),
                    "deviceType": .string("headless"), "fingerprint": .string("ab12"), "port": .number("53317"),
                    "protocol": .string("https"), "download": .bool(false),
                ]))
        #expect(try LocalSendDevice.parse(device.json()) == (device, false) as (LocalSendDevice, Bool))
    }

    @Test func theAnnouncementAddsAnnounce() throws {
        let device = LocalSendDevice.filedrop(alias: "x", fingerprint: "f", port: 1)
        let parsed = try LocalSendDevice.parse(device.json(announce: true))
        #expect(parsed.device == device)
        #expect(parsed.announce)
    }

    @Test func theAliasIsTheMDNSName() {
        #expect(LocalSendDevice.alias(configured: nil, hostName: "nas.lan") == "filedrop on nas")
        #expect(LocalSendDevice.alias(configured: "Büro", hostName: "nas") == "Büro")
    }

    /// The spec's §3.2 register request, trailing comma and comments removed.
    @Test func readsTheSpecificationsRegisterRequest() throws {
        let body =
            #"{"alias": "Secret Banana", "version": "2.0", "deviceModel": "Windows", "deviceType": "desktop", "fingerprint": "random string", "port": 53317, "protocol": "https", "download": true}"#
        let (device, announce) = try LocalSendDevice.parse(Array(body.utf8))
        #expect(
            device
                == LocalSendDevice(
                    alias: "Secret Banana", version: "2.0", deviceModel: "Windows", deviceType: "desktop",
                    fingerprint: "random string", port: 53317, protocol: "https", download: true))
        #expect(!announce)
    }

    @Test func nullableMembersMayBeNullOrMissing() throws {
        let body = #"{"alias": "a", "version": "2.1", "deviceModel": null, "deviceType": null}"#
        let device = try LocalSendDevice.parse(Array(body.utf8)).device
        #expect(device.deviceModel == nil && device.deviceType == nil && device.port == nil && !device.download)
    }

    @Test(arguments: [
        #"{"version": "2.1"}"#, #"{"alias": "", "version": "2.1"}"#, #"{"alias": "a"}"#,
        #"{"alias": "a", "version": "2", "port": 70000}"#, #"{"alias": "a", "version": "2", "download": "yes"}"#,
        #"{"alias": 1, "version": "2"}"#, "[]", "not json",
    ])
    func refusesBodiesMissingWhatIsRequired(_ body: String) {
        #expect(throws: LocalSendDevice.InvalidBody.self) { try LocalSendDevice.parse(Array(body.utf8)) }
    }

    @Test func refusesOneByteOverTheBodyLimit() throws {
        let prefix = #"{"alias": "a", "version": "2.1", "deviceModel": ""#
        let suffix = #""}"#
        let fill = LocalSendDevice.maxBodyBytes - prefix.utf8.count - suffix.utf8.count
        let fits = prefix + String(repeating: "m", count: fill) + suffix
        #expect(throws: Never.self) { try LocalSendDevice.parse(Array(fits.utf8)) }
        let over = prefix + String(repeating: "m", count: fill + 1) + suffix
        #expect(throws: LocalSendDevice.InvalidBody.self) { try LocalSendDevice.parse(Array(over.utf8)) }
    }
}
