import CSystemd
import Glibc

/// A listening socket handed over by systemd (a .socket unit), with the name from its
/// FileDescriptorName= (or "unknown").
public struct ActivatedSocket: Sendable, Equatable {
    public var fd: Int32
    public var name: String

    public init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
    }
}

/// Socket activation (sd_listen_fds(3)): adopt the sockets systemd opened for us instead
/// of binding our own.
public enum SocketActivation {
    /// The stream sockets passed in LISTEN_FDS, made non-blocking and close-on-exec.
    /// Empty when LISTEN_FDS is unset or LISTEN_PID names another process. The LISTEN_*
    /// variables are removed so that no child process adopts the sockets too. Passed
    /// descriptors that are not listening stream sockets are left alone.
    public static func listenFileDescriptors() -> [ActivatedSocket] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = sd_listen_fds_with_names(1, &names)
        defer {
            if let names {
                for index in 0..<Int(max(count, 0)) { free(names[index]) }
                free(names)
            }
        }
        guard count > 0 else { return [] }
        var sockets: [ActivatedSocket] = []
        for index in 0..<count {
            let fd = SD_LISTEN_FDS_START + index
            guard sd_is_socket(fd, AF_UNSPEC, Int32(SOCK_STREAM.rawValue), 1) > 0 else { continue }
            let flags = fcntl(fd, F_GETFL)
            guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { continue }
            let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
            sockets.append(ActivatedSocket(fd: fd, name: name))
        }
        return sockets
    }
}
