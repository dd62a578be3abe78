import Glibc
import Testing
@testable import FiledropIO

/// The client's address as logs, limits and the access rules see it: written by hand for
/// IPv4 (and IPv4-mapped IPv6, what a dual-stack `[::]` listener accepts from IPv4 clients),
/// by inet_ntop for the rest.
@Suite struct SocketAddressTests {
    @Test(arguments: [
        ("0.0.0.0", "0.0.0.0"), ("10.0.0.1", "10.0.0.1"), ("192.168.100.255", "192.168.100.255"),
        ("255.255.255.255", "255.255.255.255"), ("1.20.100.9", "1.20.100.9"), ("127.0.0.1", "127.0.0.1"),
        ("::ffff:192.168.1.20", "192.168.1.20"), ("::ffff:0.0.0.9", "0.0.0.9"), ("::1", "::1"),
        ("fe80::1", "fe80::1"), ("2001:db8::8a2e:370:7334", "2001:db8::8a2e:370:7334"), ("::ffff:1:2", "0.1.0.2"), ("64:ff9b::1", "64:ff9b::1"),
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
        var accepted: Int32 = -1
        for _ in 0..<100 where accepted < 0 {
            if case .done(let (fd, peer)) = try listener.accept() {
                accepted = fd
                #expect(peer.host == "127.0.0.1")
            } else {
                usleep(10_000)
            }
        }
        try #require(accepted >= 0)
        defer { Glibc.close(accepted) }
        var noDelay: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, &length) == 0)
        #expect(noDelay == 1)
    }
}
