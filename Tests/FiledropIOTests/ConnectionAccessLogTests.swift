import FiledropCore
import FiledropHTTP
import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// A download the client does not take whole is still in the access log, marked cut, with
/// the bytes that went out: a live server on 127.0.0.1, a real client socket.
@Suite struct ConnectionAccessLogTests {
    static let bodySize = 32 << 20

    /// Answers every request with `bodySize` bytes.
    struct BigResponse: HTTPResponder {
        func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
            .respond(Response(status: .ok, body: .bytes([UInt8](repeating: 0x61, count: ConnectionAccessLogTests.bodySize))))
        }
    }

    /// The access log's queue, read as its writer thread would.
    final class Records: LogSink {
        let queue = AccessLogQueue(loops: 1, rate: .unlimited, enabled: true, wake: {})
        func log(_ event: LogEvent) {}

        /// Waits (up to 10 s) for the first access-log record.
        func first() -> AccessLogRecord? {
            let deadline = Clock.monotonicNanoseconds() + 10_000_000_000
            while Clock.monotonicNanoseconds() < deadline {
                if let record = queue.takeRecords().first { return record }
                usleep(10_000)
            }
            return nil
        }
    }

    /// Serves on a port of its own while `body` runs with that port, then shuts down.
    func serving(
        _ configure: (inout ConnectionConfiguration) -> Void = { _ in }, log: Records,
        _ body: (UInt16) throws -> Void
    ) throws {
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        var configuration = ServerConfiguration()
        configuration.threads = 1
        configuration.observer = RequestRecorder(metrics: nil, accessLog: log.queue)
        configure(&configuration.connection)
        let server = try HTTPServer(listeners: [listener], configuration: configuration, responder: BigResponse(), log: log)
        let thread = startNamedThread("test-server") { server.run() }
        defer {
            server.beginShutdown(deadline: Clock.monotonicNanoseconds())
            pthread_join(thread, nil)
        }
        try body(listener.address.port)
    }

    /// A connected client with a small receive buffer that has sent `GET /big`.
    func requestBigFile(port: UInt16) throws -> Int32 {
        let fd = try connectedLoopbackClient(port: port, receiveBuffer: 16 * 1024)
        let request = Array("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        try #require(send(fd, request, request.count, 0) == request.count)
        return fd
    }

    func readSome(_ fd: Int32, bytes wanted: Int) -> Int {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while total < wanted {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            total += count
        }
        return total
    }

    @Test func aClientThatClosesMidBodyIsLoggedAsCut() throws {
        let log = Records()
        try serving(log: log) { port in
            let fd = try requestBigFile(port: port)
            #expect(readSome(fd, bytes: 256 * 1024) >= 256 * 1024)
            // A reset, as a client that gives up does: the server's next write fails.
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            Glibc.close(fd)
            let record = try #require(log.first())
            #expect(record.status == 200)
            #expect(record.responseCut)
            #expect(record.bytesSent > 0 && record.bytesSent < UInt64(Self.bodySize))
        }
    }

    @Test func aClientThatStopsReadingIsLoggedAsCutAtTheWriteTimeout() throws {
        let log = Records()
        try serving({ $0.writeTimeout = 300_000_000 }, log: log) { port in
            let fd = try requestBigFile(port: port)
            defer { Glibc.close(fd) }
            let record = try #require(log.first())
            #expect(record.responseCut)
            #expect(record.bytesSent > 0 && record.bytesSent < UInt64(Self.bodySize))
        }
    }
}
