import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// The client's address as logs, limits and the access rules see it: written by hand for
/// IPv4 (and IPv4-mapped IPv6, what a dual-stack `[::]` listener accepts from IPv4 clients),
/// by inet_ntop for the rest.
@Suite struct SocketAddressTests {
    @Test(arguments: [
        ("0.0.0.0", "0.0.0.0"), ("10.0.0.1", "10.0.0.1"), ("192.168.100.255", "192.168.100.255"),
        ("255.255.255.255", "255.255.255.255"), ("1.20.100.9", "1.20.100.9"), ("127.0.0.1", "127.0.0.1"),
        ("::ffff:192.168.1.20", "192.168.1.20"), ("::ffff:0.0.0.9", "0.0.0.9"), ("::1", "::1"),
        ("fe80::1", "fe80::1"), ("2001:db8::8a2e:370:7334", "2001:db8::8a2e:370:7334"), ("::ffff:1:2", "0.1.0.2"),
        ("64:ff9b::1", "64:ff9b::1"),
    ])
    func hostIsTheAddressAsText(literal: String, text: String) throws {
        let address = try #require(SocketAddress(host: literal, port: 8080))
        #expect(address.host == text)
        #expect(address.port == 8080)
    }

    /// Responses go out in one sendmsg each and must not wait behind Nagle for the client's
    /// ACK: accepted sockets get TCP_NODELAY from the listener, which sets it once.
    @Test func acceptedSocketsInheritNoDelay() throws {
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let client = try connectedLoopbackClient(port: listener.address.port)
        defer { Glibc.close(client) }
        #expect(send(client, "GET", 3, 0) == 3)
        let accepted = try acceptWithin(listener, seconds: 1)
        defer { Glibc.close(accepted.fd) }
        #expect(accepted.peer.host == "127.0.0.1")
        var noDelay: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(accepted.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, &length) == 0)
        #expect(noDelay == 1)
    }

    /// A connection is handed over once its first bytes are in (TCP_DEFER_ACCEPT), so the
    /// read after accept finds the request; a silent one is still handed over, a second or
    /// so later, for the daemon's own timeouts to deal with.
    @Test func aConnectionIsAcceptedWhenItsFirstBytesAreIn() throws {
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let speaking = try connectedLoopbackClient(port: listener.address.port)
        defer { Glibc.close(speaking) }
        usleep(200_000)
        guard case .wouldBlock = try listener.accept() else {
            Issue.record("a connection that has sent nothing was handed over at once")
            return
        }
        #expect(send(speaking, "GET", 3, 0) == 3)
        let accepted = try acceptWithin(listener, seconds: 1)
        defer { Glibc.close(accepted.fd) }
        var first = [UInt8](repeating: 0, count: 8)
        #expect(read(accepted.fd, &first, first.count) == 3, "the bytes are there at accept")

        let silent = try connectedLoopbackClient(port: listener.address.port)
        defer { Glibc.close(silent) }
        let late = try acceptWithin(listener, seconds: 6)
        Glibc.close(late.fd)
    }

    /// The next connection `listener` hands over within `seconds`.
    private func acceptWithin(_ listener: ListeningSocket, seconds: Int) throws -> (fd: Int32, peer: SocketAddress) {
        for _ in 0..<(seconds * 100) {
            if case .done(let accepted) = try listener.accept() { return accepted }
            usleep(10_000)
        }
        throw AcceptTimedOut()
    }

    private struct AcceptTimedOut: Error {}
}
