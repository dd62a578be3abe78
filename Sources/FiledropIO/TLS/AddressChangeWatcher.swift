import CLinux
import FiledropServer
import Glibc

/// Hears the kernel announce an address added to or removed from an interface (DHCP, another
/// WiFi, an IPv6 prefix), through a NETLINK_ROUTE socket subscribed to the IPv4 and IPv6
/// address groups (rtnetlink(7)). It reads no message's contents: each wakeup drains the
/// socket and calls `onChange` once; the daemon then asks `ServedNames.current` whether the
/// certificate must change (IPv6 lifetime refreshes wake it too, with nothing changed).
///
/// The socket watches the network namespace of the thread that opened it.
final class AddressChangeWatcher: EventHandler {
    let descriptor: Int32
    private let onChange: () -> Void

    /// Netlink messages are at most a page or two; this takes several at once.
    private static let bufferSize = 16_384
    /// Reads per wakeup at most: a storm of changes cannot hold the main loop, and what is
    /// left wakes it again (level-triggered).
    private static let readsPerWakeup = 64

    init(onChange: @escaping () -> Void) throws(SystemError) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        descriptor = try syscall("socket(AF_NETLINK)") { socket(AF_NETLINK, type, NETLINK_ROUTE) }
        self.onChange = onChange
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = UInt32(RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR)
        do {
            try syscall("bind(AF_NETLINK)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                    }
                }
            }
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit {
        close(descriptor)
    }

    func handle(events: UInt32, loop: EventLoop) {
        if drain() { onChange() }
    }

    /// Reads until nothing is left (or `readsPerWakeup`); whether anything was read or lost.
    /// ENOBUFS means the kernel dropped messages because we were slow: something changed
    /// all the same.
    func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: Self.bufferSize)
        var changed = false
        for _ in 0..<Self.readsPerWakeup {
            let result: IOResult<Int>
            do {
                result = try nonBlockingSyscall("recv(netlink)") { recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) }
            } catch {
                // ENOBUFS, or an error netlink reports once and clears: treat either as a change.
                changed = true
                if error.errno == ENOBUFS { continue }
                return changed
            }
            switch result {
            case .wouldBlock: return changed
            case .done(0): return changed
            case .done: changed = true
            }
        }
        return changed
    }
}
