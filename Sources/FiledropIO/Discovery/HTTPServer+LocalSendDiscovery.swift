import CLinux
import FiledropServer

extension HTTPServer {
    /// Puts LocalSend's multicast discovery on the main loop: its socket is read there, the
    /// loop's tick sends the announcements when they are due, and the group is joined now.
    /// Call it before `run()`, as `watchAddressChanges`.
    public func runLocalSendDiscovery(_ multicast: LocalSendMulticast) throws(SystemError) {
        try mainLoop.register(multicast, events: EPOLLIN.rawValue)
        onMainLoopTick { [unowned multicast] in multicast.announceIfDue() }
        multicast.interfacesChanged()
    }
}
