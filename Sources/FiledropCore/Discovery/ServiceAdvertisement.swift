/// What the daemon announces with DNS-SD over mDNS (RFC 6763): one instance name, a service
/// per scheme, the TXT record. Computed by `ServiceAdvertisement.plan`, published by the I/O
/// layer's Avahi client; equal values need no re-registration.
public struct ServiceAdvertisement: Sendable, Equatable {
    /// The DNS-SD instance name ("filedrop on nas"), at most 63 bytes (RFC 6763 §4.1.1).
    public var instanceName: String
    public var services: [AdvertisedService]
    /// RFC 6763 §6.3: `key=value` strings; `path=/` is where the page is (the `_http._tcp`
    /// convention from RFC 6763's companion list of service types).
    public var txt: [String]

    public init(instanceName: String, services: [AdvertisedService], txt: [String] = ServiceAdvertisement.txtRecord) {
        self.instanceName = instanceName
        self.services = services
        self.txt = txt
    }

    /// The page is the root of every port.
    public static let txtRecord = ["path=/"]

    /// RFC 6763 §4.1.1: an instance name is at most 63 bytes of UTF-8.
    public static let maximumNameBytes = 63

    /// `mdns-name`, else "filedrop on HOSTNAME" (the short host name, before the first dot),
    /// else "filedrop"; cut to 63 bytes at a character boundary.
    public static func instanceName(configured: String?, hostName: String) -> String {
        let shortName = hostName.split(separator: ".").first.map(String.init) ?? ""
        let name = configured ?? (shortName.isEmpty ? "filedrop" : "filedrop on \(shortName)")
        var result = ""
        for character in name where result.utf8.count + character.utf8.count <= maximumNameBytes {
            result.append(character)
        }
        return result
    }
}

/// One DNS-SD service: a type on a port, on every interface or one.
public struct AdvertisedService: Sendable, Equatable {
    /// `_http._tcp` or `_https._tcp`.
    public var type: String
    public var port: UInt16
    /// The interface index (if_nametoindex) to announce on; nil for all of them.
    public var interfaceIndex: Int32?
    /// Which mDNS the record goes out on: a listener on IPv4 only is announced over IPv4 only,
    /// so a browser resolving it gets an address that answers.
    public var family: AdvertisedFamily

    public init(type: String, port: UInt16, interfaceIndex: Int32?, family: AdvertisedFamily) {
        self.type = type
        self.port = port
        self.interfaceIndex = interfaceIndex
        self.family = family
    }

    public static let httpType = "_http._tcp"
    public static let httpsType = "_https._tcp"
}

public enum AdvertisedFamily: Sendable, Equatable {
    case any
    case ipv4
    case ipv6
}
