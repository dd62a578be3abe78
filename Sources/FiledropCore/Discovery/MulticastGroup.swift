/// An IPv4 multicast group and UDP port, as `localsend-multicast` names it:
/// `224.0.0.167:53317`, LocalSend's default (protocol v2.1 §1). The address must be in
/// 224.0.0.0/4 (RFC 5771); LocalSend keeps to 224.0.0.0/24 because some Android devices
/// drop every other group, which is why the default is there too.
public struct MulticastGroup: Sendable, Equatable, CustomStringConvertible {
    /// The four bytes of the address, most significant first.
    public let octets: [UInt8]
    public let port: UInt16

    public static let localSendDefault = MulticastGroup(octets: [224, 0, 0, 167], port: 53317)

    private init(octets: [UInt8], port: UInt16) {
        self.octets = octets
        self.port = port
    }

    /// `A.B.C.D:PORT` with a multicast address and a port from 1 to 65535; nil otherwise.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].allSatisfy(Self.isDigit), let port = UInt16(parts[1]), port > 0 else { return nil }
        let pieces = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 4 else { return nil }
        var octets: [UInt8] = []
        for piece in pieces {
            // Dotted decimal only: no leading zeros (inet_aton would read them as octal).
            guard (1...3).contains(piece.count), piece.allSatisfy(Self.isDigit), let value = UInt8(piece),
                piece == "0" || !piece.hasPrefix("0")
            else { return nil }
            octets.append(value)
        }
        guard octets[0] & 0xF0 == 0xE0 else { return nil }
        self.init(octets: octets, port: port)
    }

    private static func isDigit(_ character: Character) -> Bool {
        ("0"..."9").contains(character)
    }

    /// The address in network byte order, as `in_addr.s_addr` holds it.
    public var networkOrderAddress: UInt32 {
        octets.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }

    public var description: String {
        octets.map(String.init).joined(separator: ".") + ":\(port)"
    }
}
