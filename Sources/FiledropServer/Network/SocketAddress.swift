import Glibc

/// An IPv4 or IPv6 socket address, built from text and printed for logs.
public struct SocketAddress: Sendable, CustomStringConvertible {
    public var storage = sockaddr_storage()
    public var length: socklen_t

    /// `host` is an IPv4 or IPv6 literal (no brackets), or "" for the dual-stack wildcard `[::]`.
    public init?(host: String, port: UInt16) {
        if host.isEmpty || host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            if !host.isEmpty {
                guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
        }
    }

    public init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    public var family: Int32 { Int32(storage.ss_family) }

    public var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            family == AF_INET6
                ? UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
                : UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
        }
    }

    /// The address without the port; IPv4-mapped IPv6 addresses print as IPv4. Worked out once
    /// per accepted connection (the connection keeps the text): dotted quads are written here,
    /// since glibc's inet_ntop formats them with sprintf, which cost more than the rest of
    /// accepting a connection.
    public var host: String {
        withUnsafeBytes(of: storage) { raw -> String in
            guard family == AF_INET6 else {
                let start = MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!
                return Self.dottedQuad(UnsafeRawBufferPointer(rebasing: raw[start..<start + 4]))
            }
            let start = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
            let address = UnsafeRawBufferPointer(rebasing: raw[start..<start + 16])
            if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
                return Self.dottedQuad(UnsafeRawBufferPointer(rebasing: address[12..<16]))
            }
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { buffer in
                guard inet_ntop(AF_INET6, address.baseAddress, buffer.baseAddress, socklen_t(buffer.count)) != nil else {
                    return ""
                }
                return String(cString: buffer.baseAddress!)
            }
        }
    }

    /// `192.168.1.20` from the address's four bytes (network order).
    private static func dottedQuad(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 15) { text in
            var count = 0
            for (index, byte) in bytes.enumerated() {
                if index > 0 {
                    text[count] = UInt8(ascii: ".")
                    count += 1
                }
                if byte >= 100 {
                    text[count] = UInt8(ascii: "0") + byte / 100
                    count += 1
                }
                if byte >= 10 {
                    text[count] = UInt8(ascii: "0") + byte / 10 % 10
                    count += 1
                }
                text[count] = UInt8(ascii: "0") + byte % 10
                count += 1
            }
            return count
        }
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    public var description: String {
        let host = self.host
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R) throws(SystemError) -> R {
        var copy = storage
        return try withUnsafePointer(to: &copy) { (pointer) throws(SystemError) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SystemError) -> R in
                try body(address, length)
            }
        }
    }
}
