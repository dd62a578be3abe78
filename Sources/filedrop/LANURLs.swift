import FiledropIO
import FiledropServer

/// The URLs a person on the LAN can open: a wildcard listener is reachable on every
/// address of the machine, a specific one only on its own.
enum LANURLs {
    static func urls(for listeners: [SocketAddress], scheme: String = "http") -> [String] {
        var urls: [String] = []
        for listener in listeners {
            let host = listener.host
            if host == "::" || host == "0.0.0.0" {
                let lan = InterfaceAddresses.lan().filter { host == "::" || $0.family == listener.family }
                for address in lan { urls.append(url(scheme, address.host, listener.port)) }
                if lan.isEmpty { urls.append(url(scheme, host == "::" ? "::1" : "127.0.0.1", listener.port)) }
            } else {
                urls.append(url(scheme, host, listener.port))
            }
        }
        return urls
    }

    private static func url(_ scheme: String, _ host: String, _ port: UInt16) -> String {
        let defaultPort: UInt16 = scheme == "https" ? 443 : 80
        let authority = host.contains(":") ? "[\(host)]" : host
        return port == defaultPort ? "\(scheme)://\(authority)/" : "\(scheme)://\(authority):\(port)/"
    }
}
