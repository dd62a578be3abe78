import CLinux
import FiledropCore
import FiledropHTTP
import FiledropServer
import Glibc

/// The daemon's control socket (`control-socket`): a Unix stream socket served by a thread
/// of its own, so a slow or silent client never holds an event loop. One connection at a
/// time: one request line in, one reply line out (`ControlRequest`, `ControlReply`).
///
/// Two guards: the file's mode (0660, so only the daemon's user and group can connect), then
/// the peer's credentials (SO_PEERCRED, SO_PEERGROUPS): root, the daemon's own user, or a
/// member of the socket's group.
public final class ControlSocketServer: Sendable {
    /// Runs a command and fulfils the promise, on whatever thread suits the command.
    public typealias Command = @Sendable (ControlRequest, ControlReplyPromise) -> Void

    public let path: String
    private let descriptor: Int32
    private let commands: [String: Command]
    private let log: any LogSink
    /// How long a client may take to send its request or read the reply.
    private static let clientTimeoutSeconds = 5

    /// Binds `path` (mode 0660). A stale socket file left by a daemon that died is replaced;
    /// a socket some process still answers on, or a file that is no socket, is an error.
    public init(path: String, commands: [String: Command], log: any LogSink) throws(SystemError) {
        self.path = path
        self.commands = commands
        self.log = log
        var address = try Self.address(path)
        var found = stat()
        if lstat(path, &found) == 0 {
            guard found.st_mode & S_IFMT == S_IFSOCK else {
                throw SystemError(call: "control socket \(path): a file that is no socket", errno: EEXIST)
            }
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let answered =
                probe >= 0
                && withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
                    }
                }
            if probe >= 0 { close(probe) }
            if answered { throw SystemError(call: "control socket \(path): another process answers on it", errno: EADDRINUSE) }
            unlink(path)
        }
        let fd = try syscall("socket(AF_UNIX)") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            try syscall("bind(\(path))") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            // bind made it with the umask's mode (the service's UMask=0077 leaves 0700): the
            // group gets its access only now, so the file is never more open than meant.
            try syscall("chmod(\(path))") { chmod(path, 0o660) }
            try syscall("listen(\(path))") { listen(fd, 8) }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        descriptor = fd
    }

    /// Serves on a thread named `control` until `stop`.
    public func start() {
        _ = startNamedThread("control") { [self] in
            while let client = acceptClient() {
                serve(client)
                close(client)
            }
            close(descriptor)
        }
    }

    /// Removes the socket file and ends the thread (a request in progress still gets its reply).
    public func stop() {
        unlink(path)
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// The next client, nil once the socket is shut down.
    private func acceptClient() -> Int32? {
        while true {
            do {
                return try syscall("accept(control socket)") {
                    filedrop_accept4(descriptor, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
                }
            } catch  where [ECONNABORTED, EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errno) {
                // A client gone before we took it, or a moment short of descriptors: not the end.
                if error.errno != ECONNABORTED { sleep(1) }
            } catch {
                return nil
            }
        }
    }

    private func serve(_ client: Int32) {
        var timeout = timeval(tv_sec: Self.clientTimeoutSeconds, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var uid = uid_t()
        var gid = gid_t()
        // Read before judging, so that a refused client has sent its line and reads the refusal
        // rather than a broken pipe.
        let line = readLine(client)
        let reply: ControlReply
        if filedrop_peer_credentials(client, &uid, &gid) != 0 {
            reply = ControlReply(ok: false, message: "cannot tell who is asking (SO_PEERCRED failed)")
        } else if let refusal = refusal(of: client, uid: uid, gid: gid) {
            log.log(
                LogEvent(
                    level: .warning, message: "control socket: refused a request from uid \(uid)",
                    fields: [("control_uid", "\(uid)")]))
            reply = refusal
        } else if let line {
            reply = answer(line, uid: uid)
        } else {
            reply = ControlReply(
                ok: false,
                message: "no request line within \(Self.clientTimeoutSeconds) s, "
                    + "or one longer than \(ControlRequest.maxLineBytes) bytes")
        }
        let bytes = reply.line
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { break }
            sent += written
        }
    }

    private func answer(_ line: [UInt8], uid: uid_t) -> ControlReply {
        let request: ControlRequest
        switch ControlRequest.parse(line) {
        case .request(let parsed): request = parsed
        case .invalid(let reply): return reply
        }
        guard let command = commands[request.command] else {
            return .unknownCommand(request.command, known: Array(commands.keys))
        }
        log.log(
            LogEvent(
                level: .info, message: "control socket: \(request.command.logEscaped) asked by uid \(uid)",
                fields: [("control_command", request.command), ("control_uid", "\(uid)")]))
        let promise = ControlReplyPromise()
        command(request, promise)
        return promise.wait()
    }

    /// Why this peer may not send commands; nil when it may.
    private func refusal(of client: Int32, uid: uid_t, gid: gid_t) -> ControlReply? {
        if uid == 0 || uid == getuid() { return nil }
        var socketFile = stat()
        guard stat(path, &socketFile) == 0 else { return ControlReply(ok: false, message: "the control socket file is gone") }
        if gid == socketFile.st_gid { return nil }
        var groups = [gid_t](repeating: 0, count: 256)
        let count = filedrop_peer_groups(client, &groups, Int32(groups.count))
        if count > 0 && groups.prefix(Int(count)).contains(socketFile.st_gid) { return nil }
        return ControlReply(
            ok: false,
            message: "user \(uid) may not control filedrop: only root, the daemon's user "
                + "and members of the control socket's group may")
    }

    /// One line up to its newline (or the end of the stream), without it.
    private func readLine(_ client: Int32) -> [UInt8]? {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while line.count <= ControlRequest.maxLineBytes {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return line.isEmpty ? nil : line }
            if let end = chunk[..<count].firstIndex(of: UInt8(ascii: "\n")) {
                return line + chunk[..<end]
            }
            line += chunk[..<count]
        }
        return nil
    }

    static func address(_ path: String) throws(SystemError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw SystemError(call: "control socket path \(path)", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }
}

/// A command's reply, handed from the thread that ran it to the control thread, which waits.
public final class ControlReplyPromise: Sendable {
    private let reply = ConditionLock<ControlReply?>(nil)

    init() {}

    public func fulfil(_ reply: ControlReply) {
        self.reply.withLock { if $0 == nil { $0 = reply } }
        self.reply.signal()
    }

    func wait() -> ControlReply {
        reply.withLock(when: { $0 != nil }) { $0! }
    }
}
