import Glibc
import Testing

@testable import FiledropIO

/// A TCP client socket connected to `127.0.0.1:port`, with a 10 s receive timeout so a test
/// that waits for an answer never hangs. `receiveBuffer`: SO_RCVBUF, set before connecting
/// (the window is agreed then), for a test that needs a client slow to take bytes. The
/// caller closes it.
func connectedLoopbackClient(port: UInt16, receiveBuffer: Int32? = nil) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    if var receiveBuffer {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
    }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if connected != 0 { Glibc.close(fd) }
    try #require(connected == 0)
    return fd
}
