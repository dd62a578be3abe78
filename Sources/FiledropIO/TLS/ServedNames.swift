import FiledropServer
import Glibc

/// Every name and address a client may put in an `https://` URL to reach this machine: what
/// the `tls = auto` server certificate must cover. Normalized (lowercase names without a
/// trailing dot, addresses as inet_ntop prints them), sorted and unique, so two values are
/// equal exactly when the same certificate would do: the daemon compares the current value
/// with the one it issued for to tell whether an address change calls for a new certificate.
public struct ServedNames: Equatable, Sendable, CustomStringConvertible {
    public let dnsNames: [String]
    /// IPv4 and IPv6 literals, IPv6 without brackets or zone.
    public let ipAddresses: [String]

    /// Sorts `names` into DNS names and IP literals (`[::1]` counts as `::1`), normalizing both.
    public init(names: [String]) {
        var dnsNames: Set<String> = []
        var ipAddresses: Set<String> = []
        for name in names {
            if let address = Self.ipLiteral(name) {
                ipAddresses.insert(address)
            } else {
                var normalized = name.lowercased()
                while normalized.hasSuffix(".") { normalized.removeLast() }
                if !normalized.isEmpty { dnsNames.insert(normalized) }
            }
        }
        self.dnsNames = dnsNames.sorted()
        self.ipAddresses = ipAddresses.sorted()
    }

    /// `localhost`, the hostname (and its first label, and that `.local` for mDNS),
    /// `allowedHosts`, and the address of every interface that is up, loopback included and
    /// link-local IPv6 left out (no browser takes one without a zone). Reads the network
    /// namespace of the calling thread.
    public static func current(allowedHosts: [String]) -> ServedNames {
        let addresses = InterfaceAddresses.up(includingLoopback: true).map(\.host)
        return ServedNames(names: ["localhost"] + hostNames() + allowedHosts + addresses)
    }

    /// The names this machine answers to on the LAN without configuration: `nas.example.org`
    /// gives itself, `nas` and `nas.local` (mDNS); nothing when unnamed. Host checks accept
    /// them, and the `auto` certificate covers them.
    public static func hostNames() -> [String] {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return [] }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let shortName = name.split(separator: ".").first.map(String.init), !shortName.isEmpty else { return [] }
        return name == shortName ? [name, name + ".local"] : [name, shortName, shortName + ".local"]
    }

    /// The literal as inet_ntop prints it (so `::0:1` and `::1` are one), or nil for a name.
    static func ipLiteral(_ text: String) -> String? {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        guard !bare.isEmpty, let address = SocketAddress(host: bare, port: 0) else { return nil }
        return address.host
    }

    public var description: String {
        (dnsNames + ipAddresses).joined(separator: ", ")
    }
}
