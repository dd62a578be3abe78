import FiledropCore
import FiledropServer
import Glibc

extension InterfaceAddresses {
    /// Every up address with the index of its interface, loopback included, for the mDNS
    /// plan: a listener on a specific address is announced on the interface that has it.
    public static func withInterfaceIndex() -> [DiscoveryPlan.InterfaceAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [DiscoveryPlan.InterfaceAddress] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, Int32(bitPattern: entry.pointee.ifa_flags) & Int32(IFF_UP) != 0,
                let name = entry.pointee.ifa_name
            else { continue }
            let family = Int32(address.pointee.sa_family)
            let length: Int
            switch family {
            case AF_INET: length = MemoryLayout<sockaddr_in>.size
            case AF_INET6: length = MemoryLayout<sockaddr_in6>.size
            default: continue
            }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: length)) }
            let index = if_nametoindex(name)
            guard index != 0 else { continue }
            result.append(
                DiscoveryPlan.InterfaceAddress(
                    host: SocketAddress(storage: storage, length: socklen_t(length)).host,
                    interfaceIndex: Int32(index)))
        }
        return result
    }
}
