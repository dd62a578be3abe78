/// One address to bind: an IPv4 or IPv6 literal and a port. An empty host means "any
/// address, both families" (an IPv6 socket with IPV6_V6ONLY=0); `[::]`, `:PORT` and a
/// bare `PORT` all spell it.
public struct ListenAddress: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// IPv4 dotted quad, IPv6 literal without brackets, or "" for any/dual-stack.
    public var host: String
    /// 0 asks the kernel for a free port (tests learn it from X_FILEDROP_LISTEN).
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Reads `127.0.0.1:8080`, `[::1]:0`, `[::]:80`, `:8080` and `8080`.
    /// Host names are refused: resolving them would make startup depend on DNS.
    public init?(parsing text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
            guard IPAddressSyntax.isIPv6(hostPart) else { return nil }
        } else if let colon = text.lastIndex(of: ":") {
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            guard hostPart.isEmpty || IPAddressSyntax.isIPv4(hostPart) else { return nil }
        } else {
            hostPart = ""
            portPart = Substring(text)
        }
        guard !portPart.isEmpty, portPart.count <= 5,
            portPart.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let port = UInt16(portPart)
        else { return nil }
        self.init(host: hostPart == "::" ? "" : String(hostPart), port: port)
    }

    /// The form `init(parsing:)` reads back: `[::1]:80`, `127.0.0.1:80`, `[::]:8080` for any.
    public var description: String {
        if host.isEmpty { return "[::]:\(port)" }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// Syntax checks for address literals (RFC 4291 §2.2 for IPv6, dotted quad for IPv4);
/// the socket layer's inet_pton has the final word.
enum IPAddressSyntax {
    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && Int(part)! <= 255
            }
    }

    static func isIPv6(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.count <= 45 else { return false }
        // An embedded IPv4 tail (::ffff:192.0.2.1) counts as two groups.
        var groupsText = text
        var tailGroups = 0
        if let lastColon = text.lastIndex(of: ":"), text[lastColon...].contains(".") {
            guard isIPv4(text[text.index(after: lastColon)...]) else { return false }
            groupsText = text[...lastColon]
            if groupsText.hasSuffix("::") == false { groupsText = groupsText.dropLast() }
            tailGroups = 2
        }
        let halves = groupsText.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count <= 2, !groupsText.contains(":::") else { return false }
        var groupCount = tailGroups
        for half in halves where !half.isEmpty {
            let groups = half.split(separator: ":", omittingEmptySubsequences: false)
            guard groups.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isHexDigit) }) else { return false }
            groupCount += groups.count
        }
        return halves.count == 2 ? groupCount <= 7 : groupCount == 8
    }
}
