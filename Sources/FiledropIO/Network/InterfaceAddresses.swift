import Glibc

/// The machine's own addresses, to tell a person which URLs reach the daemon from the LAN.
public enum InterfaceAddresses {
    /// Up, non-loopback IPv4 and IPv6 addresses (link-local IPv6 left out: a browser
    /// cannot use them without a zone id).
    public static func lan() -> [SocketAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0,
                  flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            let family = Int32(address.pointee.sa_family)
            var storage = sockaddr_storage()
            let length: Int
            switch family {
            case AF_INET: length = MemoryLayout<sockaddr_in>.size
            case AF_INET6: length = MemoryLayout<sockaddr_in6>.size
            default: continue
            }
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: length)) }
            let socketAddress = SocketAddress(storage: storage, length: socklen_t(length))
            if family == AF_INET6 && socketAddress.host.lowercased().hasPrefix("fe80") { continue }
            result.append(socketAddress)
        }
        return result
    }
}
