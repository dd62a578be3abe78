import FiledropCore
import FiledropHTTP
import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// A new request is read into the loop's scratch, and what the request leaves behind (the
/// next pipelined request, a head cut short) moves to the connection's own buffer: requests
/// must come out whole and in order however the bytes are split. A live server on 127.0.0.1,
/// a real client socket.
@Suite struct ConnectionReadingTests {
    /// Answers every request with its target, so the order of the answers shows.
    struct EchoTarget: HTTPResponder {
        func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
            .respond(Response(status: .ok, body: .bytes(Array(head.target.utf8))))
        }
    }

    /// Serves on a port of its own while `body` runs with a connected client socket.
    func withClient(_ body: (Int32) throws -> Void) throws {
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        var configuration = ServerConfiguration()
        configuration.threads = 1
        let log = ConnectionAccessLogTests.Records()
        let server = try HTTPServer(listeners: [listener], configuration: configuration, responder: EchoTarget(), log: log)
        let thread = startNamedThread("test-server") { server.run() }
        defer {
            server.beginShutdown(deadline: Clock.monotonicNanoseconds())
            pthread_join(thread, nil)
        }
        let fd = try connectedLoopbackClient(port: listener.address.port)
        defer { Glibc.close(fd) }
        try body(fd)
    }

    func send(_ fd: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        try #require(Glibc.send(fd, bytes, bytes.count, 0) == bytes.count)
    }

    /// The bodies of the next `count` responses (each framed by Content-Length), in order.
    func bodies(_ fd: Int32, count: Int) -> [String] {
        var received: [UInt8] = []
        var bodies: [String] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bodies.count < count {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingOWS()) } ?? 0
                if received.count >= end.upperBound + length {
                    bodies.append(String(decoding: received[end.upperBound..<(end.upperBound + length)], as: UTF8.self))
                    received.removeFirst(end.upperBound + length)
                    continue
                }
            }
            let got = recv(fd, &chunk, chunk.count, 0)
            guard got > 0 else { break }
            received += chunk[..<got]
        }
        return bodies
    }

    @Test func pipelinedRequestsInOneReadAreAnsweredInOrder() throws {
        try withClient { fd in
            try send(fd, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(bodies(fd, count: 3) == ["/a", "/b", "/c"])
        }
    }

    @Test func aHeadSplitAcrossReadsIsAnsweredOnce() throws {
        try withClient { fd in
            try send(fd, "GET /split HTTP/1.1\r\nHo")
            usleep(100_000)
            try send(fd, "st: x\r\n\r\n")
            #expect(bodies(fd, count: 1) == ["/split"])
            // The connection is kept: the next request starts from an empty buffer again.
            try send(fd, "GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(bodies(fd, count: 1) == ["/next"])
        }
    }

    @Test func aPipelinedRequestCutShortIsCompletedByTheNextRead() throws {
        try withClient { fd in
            try send(fd, "GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /sec")
            usleep(100_000)
            try send(fd, "ond HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(bodies(fd, count: 2) == ["/first", "/second"])
        }
    }
}
