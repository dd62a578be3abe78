import FiledropCore
import Glibc

/// The other end of `ControlSocketServer`: sends one request, reads one reply.
public enum ControlSocketClient {
    /// The daemon's reply, or a sentence saying why there is none.
    public static func send(_ request: ControlRequest, to path: String, timeoutSeconds: Int = 60) -> Result<
        ControlReply, ControlFailure
    > {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(ControlFailure("cannot make a socket: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard var address = try? ControlSocketServer.address(path) else {
            return .failure(ControlFailure("the control socket path \(path) is too long"))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            let hint =
                switch errno {
                case ENOENT, ECONNREFUSED: " (is filedrop running with control-socket = \(path)?)"
                case EACCES, EPERM: " (run it as root or as a member of the socket's group)"
                default: ""
                }
            return .failure(ControlFailure("cannot connect to the control socket \(path): \(reason)\(hint)"))
        }
        let line = request.line
        // A refusal may come before the whole line is taken: the reply is read in any case.
        let sendError =
            line.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count ? nil : errno
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.contains(UInt8(ascii: "\n")) && received.count <= ControlRequest.maxLineBytes {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                return .failure(ControlFailure("no answer from filedrop within \(timeoutSeconds) s on \(path)"))
            }
            if count == 0 { break }
            received += chunk[..<count]
        }
        let replyLine = received.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
        guard let reply = ControlReply.parse(replyLine) else {
            if let sendError {
                return .failure(ControlFailure("cannot send the request to \(path): \(String(cString: strerror(sendError)))"))
            }
            return .failure(
                ControlFailure(
                    received.isEmpty
                        ? "filedrop closed the control connection without an answer"
                        : "filedrop's answer is not a reply: \(String(decoding: replyLine.prefix(200), as: UTF8.self).logEscaped)"
                ))
        }
        return .success(reply)
    }
}

/// Why a control request got no reply: a sentence.
public struct ControlFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
