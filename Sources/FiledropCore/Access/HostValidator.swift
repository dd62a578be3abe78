import FiledropHTTP

/// Accepts a request only when it names this server: an IP literal, `localhost`, or one of
/// the configured names. This defeats DNS rebinding, where a website the user visits makes
/// its own name resolve to the LAN address of the daemon: the browser then sends
/// `Host: evil.example`, which no legitimate client of a LAN file drop does.
public struct HostValidator: Sendable {
    /// Lowercased names without a trailing dot (`localhost` always among them).
    public let allowedNames: Set<String>

    /// `names`: configured names (`allowed-hosts`) and the machine's own (`hostname`,
    /// `hostname.local`); compared without case and without a trailing dot.
    public init(names: [String]) {
        var allowed: Set<String> = ["localhost"]
        for name in names where !name.isEmpty {
            allowed.insert(Self.normalized(Substring(name)))
        }
        allowedNames = allowed
    }

    /// Whether the request may be served. RFC 9112 §3.2.2: with an absolute-form target
    /// the target's authority replaces `Host`. An HTTP/1.0 request may come without a Host
    /// (the parser already refuses HTTP/1.1 without one, RFC 9112 §3.2).
    /// A value that is not `host[:port]` at all is 400 (RFC 9112 §3.2: "a Host header field
    /// with an invalid field value"); a well-formed name we do not serve is 421.
    public func check(_ head: RequestHead) throws(HTTPError) {
        // The usual Host, an IPv4 address and port, is settled from the field's bytes alone,
        // before any String is made of them.
        let absolute = Self.authority(ofAbsoluteTarget: head.target)
        if absolute == nil, head.headers.withValueBytes(of: .host, IPLiteral.isIPv4Authority) == true { return }
        let authority: Substring
        if let absolute {
            authority = absolute
        } else if let host = head.headers[.host] {
            // The parser already trimmed the value; heads built in code may not be.
            let edges = (host.utf8.first, host.utf8.last)
            let padded = edges.0 == 0x20 || edges.0 == 0x09 || edges.1 == 0x20 || edges.1 == 0x09
            authority = padded ? Substring(host.trimmingOWS()) : Substring(host)
        } else {
            return
        }
        guard Self.isWellFormed(authority: authority) else {
            let shown = String(authority.prefix(100)).logEscaped
            throw .badRequest("The Host \"\(shown)\" is not a host name or an IP address with an optional port.")
        }
        guard accepts(authority: authority) else {
            let shown = String(authority.prefix(100)).logEscaped
            throw .misdirectedRequest(
                "This server does not answer to the name \"\(shown)\". Open it by its IP address, "
                    + "or add the name to allowed-hosts (--allowed-hosts).")
        }
    }

    /// `host[:port]` as RFC 9110 §7.2 and RFC 3986 §3.2.2 write it.
    public func accepts<S: StringProtocol>(authority: S) -> Bool {
        // Most clients name the server by its IPv4 address: settle that from the bytes,
        // without the substrings and the name set below.
        let literal = authority.utf8.withContiguousStorageIfAvailable { IPLiteral.isIPv4Authority(UnsafeRawBufferPointer($0)) }
        if literal == true { return true }
        guard let (host, _) = Self.split(authority: Substring(authority)) else { return false }
        if host.utf8.first == UInt8(ascii: "[") { return true }  // split() checked the IPv6 literal
        if IPLiteral.isIPv4(host) { return true }
        return allowedNames.contains(Self.normalized(host))
    }

    /// RFC 3986 §3.2: `host [ ":" port ]`, where host is an IP literal in brackets (IPv6;
    /// IPvFuture is refused as no client sends it), or a non-empty `reg-name` (which covers
    /// IPv4): unreserved, pct-encoded and sub-delims only. So a list (`a, b`: the space), a
    /// userinfo (`a@b`, also refused in http URIs by RFC 9110 §4.2.4), a path, raw non-ASCII
    /// and an empty host (RFC 9110 §4.2.1: an http URI never has one) are malformed.
    static func isWellFormed(authority: Substring) -> Bool {
        guard let (host, _) = split(authority: authority) else { return false }
        if host.utf8.first == UInt8(ascii: "[") { return true }  // split() checked the IPv6 literal
        var bytes = host.utf8.makeIterator()
        while let byte = bytes.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = bytes.next(), let low = bytes.next(), IPLiteral.isHexDigit(high), IPLiteral.isHexDigit(low)
                else { return false }
                continue
            }
            guard isRegNameByte(byte) else { return false }
        }
        return true
    }

    /// RFC 3986 §2.3 unreserved and §2.2 sub-delims.
    private static func isRegNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    /// Splits `host[:port]`; nil when the port is not 0-65535 digits or an IPv6 literal is malformed.
    /// Works on the UTF-8 bytes: it runs on every request's Host, and every delimiter is ASCII.
    static func split(authority: Substring) -> (host: Substring, port: Substring?)? {
        let bytes = authority.utf8
        guard let first = bytes.first else { return nil }
        let host: Substring
        let rest: Substring
        if first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = authority[...close]
            guard IPLiteral.isIPv6(host.dropFirst().dropLast()) else { return nil }
            rest = authority[bytes.index(after: close)...]
        } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            rest = authority[colon...]
        } else {
            host = authority
            rest = ""
        }
        guard !host.isEmpty else { return nil }
        guard let separator = rest.utf8.first else { return (host, nil) }
        let port = rest[rest.utf8.index(after: rest.utf8.startIndex)...]
        var value = 0
        for byte in port.utf8 {
            guard byte >= 0x30 && byte <= 0x39, value <= 65535 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        guard separator == UInt8(ascii: ":"), port.utf8.count <= 5, value <= 65535 else { return nil }
        return (host, port)
    }

    /// The authority of `http://authority/path`, or nil for origin-form and other targets.
    static func authority(ofAbsoluteTarget target: String) -> Substring? {
        // The byte test settles origin-form, which nearly every request uses, at once.
        guard target.utf8.first != UInt8(ascii: "/"), let schemeEnd = target.firstRange(of: "://") else { return nil }
        let afterScheme = target[schemeEnd.upperBound...]
        let end = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
        return afterScheme[..<end]
    }

    static func normalized(_ name: Substring) -> String {
        let trimmed = name.hasSuffix(".") ? name.dropLast() : name
        return trimmed.lowercased()
    }
}

/// Recognizes textual IP addresses without the C library (the core has none).
enum IPLiteral {
    /// Dotted-decimal `a.b.c.d`, each part 0-255 without leading zeros (RFC 3986 §3.2.2
    /// `IPv4address`); one pass over the bytes (it runs on every request's Host).
    static func isIPv4<S: StringProtocol>(_ text: S) -> Bool {
        dottedQuadEnd(in: text.utf8) == text.utf8.endIndex
    }

    /// `IPv4address [ ":" port ]` with the rules of `HostValidator.split` for the port
    /// (at most five digits, at most 65535, possibly empty), read straight from the bytes.
    static func isIPv4Authority(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let index = dottedQuadEnd(in: bytes) else { return false }
        guard index < bytes.count else { return true }
        let portDigits = bytes.count - index - 1
        guard portDigits <= 5 else { return false }
        var port = 0
        for position in (index + 1)..<bytes.count {
            let byte = bytes[position]
            guard byte >= 0x30 && byte <= 0x39 else { return false }
            port = port * 10 + Int(byte - 0x30)
        }
        return port <= 65535
    }

    /// Where the dotted quad that `bytes` start with ends (the end, or a `:`); nil when they
    /// do not start with one.
    private static func dottedQuadEnd<C: Collection<UInt8>>(in bytes: C) -> C.Index? {
        var dots = 0
        var digits = 0
        var value = 0
        var index = bytes.startIndex
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: ":") {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return nil }
                dots += 1
                digits = 0
                value = 0
                continue
            }
            guard byte >= 0x30 && byte <= 0x39, !(digits == 1 && value == 0) else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
            guard digits <= 3, value <= 255 else { return nil }
        }
        return dots == 3 && digits > 0 ? index : nil
    }

    static func isIPv6<S: StringProtocol>(_ text: S) -> Bool {
        guard text.count >= 2, text.count <= 45 else { return false }
        let halves = splitAtDoubleColons(String(text))
        guard halves.count <= 2 else { return false }
        var groups = 0
        for (index, half) in halves.enumerated() where !half.isEmpty {
            let pieces = half.split(separator: ":", omittingEmptySubsequences: false)
            for (position, piece) in pieces.enumerated() {
                let isLast = index == halves.count - 1 && position == pieces.count - 1
                if isLast, piece.contains(".") {
                    guard isIPv4(piece) else { return false }
                    groups += 2
                    continue
                }
                guard (1...4).contains(piece.count), piece.utf8.allSatisfy(isHexDigit) else { return false }
                groups += 1
            }
        }
        return halves.count == 2 ? groups <= 7 : groups == 8
    }

    /// Splits at each `::`; a valid address has at most one, so at most two pieces.
    private static func splitAtDoubleColons(_ text: String) -> [Substring] {
        var pieces: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index] == ":", next < text.endIndex, text[next] == ":" {
                pieces.append(text[start..<index])
                start = text.index(after: next)
                index = start
                continue
            }
            index = next
        }
        pieces.append(text[start...])
        return pieces
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }
}
