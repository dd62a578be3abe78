import FiledropCore
import Testing

/// `localsend-multicast` values: IPv4 multicast group and port, nothing else.
struct MulticastGroupTests {
    @Test func theDefaultIsLocalSendsGroup() {
        #expect(MulticastGroup(parsing: "224.0.0.167:53317") == .localSendDefault)
        #expect(MulticastGroup.localSendDefault.description == "224.0.0.167:53317")
        #expect(MulticastGroup.localSendDefault.octets == [224, 0, 0, 167])
    }

    @Test(arguments: ["224.0.0.1:1", "239.255.255.250:1900", "224.0.0.168:65535"])
    func multicastGroupsAreTaken(text: String) {
        #expect(MulticastGroup(parsing: text)?.description == text)
    }

    @Test(arguments: [
        "224.0.0.167", "224.0.0.167:", "224.0.0.167:0", "224.0.0.167:65536", "192.168.1.5:53317",
        "240.0.0.1:53317", "223.255.255.255:53317", "224.0.0:53317", "224.0.0.0.1:53317",
        "224.0.0.0167:53317", "224.00.0.167:53317", "224.0.0.256:53317", "[ff02::167]:53317",
        "224.0.0.167:53317:1", "224.0.0.+1:53317", "224.0.0.167:+53317", " 224.0.0.167:53317", "",
    ])
    func anythingElseIsRefused(text: String) {
        #expect(MulticastGroup(parsing: text) == nil)
    }

    @Test func theNetworkOrderAddressIsTheOctetsInOrder() {
        let address = MulticastGroup.localSendDefault.networkOrderAddress
        withUnsafeBytes(of: address) { #expect(Array($0) == [224, 0, 0, 167]) }
    }
}
