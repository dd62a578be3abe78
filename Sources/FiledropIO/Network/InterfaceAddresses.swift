import FiledropServer
import Glibc

/// The machine's own addresses, to tell a person which URLs reach the daemon from the LAN
/// and to name them in the `tls = auto` server certificate.
public enum InterfaceAddresses {
    /// Up, non-loopback IPv4 and IPv6 addresses (link-local IPv6 left out: a browser
    /// cannot use them without a zone id).
    public static func lan() -> [SocketAddress] {
        up(includingLoopback: false)
    }

    /// Addresses of interfaces that are up, in getifaddrs order; loopback ones (127.0.0.1,
    /// ::1) only when asked. Link-local IPv6 (fe80::/10) is always left out.
    public static func up(includingLoopback: Bool) -> [SocketAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0,
                includingLoopback || flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
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
            if family == AF_INET6 && socketAddress.isLinkLocalIPv6 { continue }
            result.append(socketAddress)
        }
        return result
    }
}

extension SocketAddress {
    /// fe80::/10: usable only with a zone id (`fe80::1%wlan0`), which no URL a person types has.
    var isLinkLocalIPv6: Bool {
        guard family == AF_INET6 else { return false }
        return withUnsafeBytes(of: storage) { raw in
            let address = raw.load(as: sockaddr_in6.self).sin6_addr
            return withUnsafeBytes(of: address) { $0[0] == 0xFE && $0[1] & 0xC0 == 0x80 }
        }
    }
}
