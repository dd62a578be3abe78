import CLinux
import FiledropServer

extension HTTPServer {
    /// Calls `onChange` on the main loop whenever an address is added to or removed from an
    /// interface of the daemon's network namespace (at most once per loop wakeup, however
    /// many arrived), so `tls = auto` can re-issue its certificate without a restart. Call
    /// it before `run()`, as `handleSignals`.
    public func watchAddressChanges(_ onChange: @escaping () -> Void) throws(SystemError) {
        let watcher = try AddressChangeWatcher(onChange: onChange)
        try mainLoop.register(watcher, events: EPOLLIN.rawValue)
    }
}
