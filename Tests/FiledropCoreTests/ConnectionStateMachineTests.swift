import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The connection state machine driven in memory: bytes in, actions out, time injected.
@Suite struct ConnectionStateMachineTests {
    /// Answers GET with "ok", takes bodies of PUT into a `RecordingConsumer`, refuses PUT to
    /// /too-big with 413 before any body byte.
    final class TestResponder: HTTPResponder, @unchecked Sendable {
        var consumers: [RecordingConsumer] = []
        func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
            switch (head.method, head.path) {
            case (.put, "/too-big"):
                return .respond(.error(.contentTooLarge(limit: 10), format: .text))
            case (.put, _), (.post, _):
                let consumer = RecordingConsumer()
                consumers.append(consumer)
                return .readBody(consumer)
            default:
                return .respond(Response(status: .ok, headers: ["Content-Type": "text/plain"], body: .bytes(Array("ok".utf8))))
            }
        }
    }

    final class RecordingConsumer: RequestBodyConsumer {
        var body: [UInt8] = []
        var finished = false
        var aborted = false
        func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
            body += bytes
            return .accepted
        }
        func finish(trailers: HTTPHeaders) -> Deferred<Response> {
            finished = true
            return .ready(Response(status: .created, body: .bytes(Array("got \(body.count)".utf8))))
        }
        func abort() { aborted = true }
    }

    /// The in-memory connection of FiledropTesting, which records what was sent.
    typealias Driver = ConnectionDriver

    @Test func keepAliveServesPipelinedRequestsInOrder() {
        var driver = Driver(responder: TestResponder())
        driver.receive("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(driver.sent.count == 2)
        #expect(driver.sent.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK\r\n") && $0.hasSuffix("ok") })
        #expect(!driver.closed)
    }

    @Test func connectionCloseIsHonoured() {
        var driver = Driver(responder: TestResponder())
        driver.receive("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(driver.sent.first?.contains("Connection: close\r\n") == true)
        #expect(driver.closed)
    }

    @Test func http10ClosesUnlessKeepAliveAsked() {
        var plain = Driver(responder: TestResponder())
        plain.receive("GET / HTTP/1.0\r\n\r\n")
        #expect(plain.closed)
        var kept = Driver(responder: TestResponder())
        kept.receive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(!kept.closed)
        #expect(kept.sent.first?.contains("Connection: keep-alive\r\n") == true)
    }

    @Test func headGetsHeadersWithoutBody() {
        var driver = Driver(responder: TestResponder())
        driver.receive("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(driver.sent.first?.contains("Content-Length: 2\r\n") == true)
        #expect(driver.sent.first?.hasSuffix("\r\n\r\n") == true)
    }

    @Test func bodyArrivesInPiecesAndIsFinishedOnce() {
        let responder = TestResponder()
        var driver = Driver(responder: responder)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
        #expect(driver.sent.isEmpty)
        driver.receive("world")
        #expect(responder.consumers.first?.body == Array("helloworld".utf8))
        #expect(responder.consumers.first?.finished == true)
        #expect(driver.sent.first?.hasPrefix("HTTP/1.1 201 Created") == true)
    }

    @Test func continueIsSentOnlyAfterTheRouteAccepts() {
        let responder = TestResponder()
        var accepted = Driver(responder: responder)
        accepted.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        #expect(accepted.sent == ["HTTP/1.1 100 Continue\r\n\r\n"])

        var refused = Driver(responder: responder)
        refused.receive("PUT /too-big HTTP/1.1\r\nHost: x\r\nContent-Length: 3000\r\nExpect: 100-continue\r\n\r\n")
        #expect(refused.sent.count == 1)
        #expect(refused.sent.first?.hasPrefix("HTTP/1.1 413") == true)
        // The body was never read, so the connection cannot be reused: it lingers, then closes.
        #expect(refused.sent.first?.contains("Connection: close") == true)
        #expect(refused.machine.wantsLinger)
    }

    @Test func unknownExpectationIs417() {
        var driver = Driver(responder: TestResponder())
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: something\r\n\r\n")
        #expect(driver.sent.first?.hasPrefix("HTTP/1.1 417") == true)
    }

    @Test func framingErrorsAnswer400AndClose() {
        let responder = TestResponder()
        var driver = Driver(responder: responder)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello")
        #expect(driver.sent.first?.hasPrefix("HTTP/1.1 400") == true)
        #expect(driver.sent.first?.contains("Connection: close") == true)
        #expect(responder.consumers.isEmpty)
    }

    @Test func chunkedAndContentLengthTogetherUseChunkedThenClose() {
        let responder = TestResponder()
        var driver = Driver(responder: responder)
        driver.receive(
            "PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        #expect(responder.consumers.first?.body == Array("hello".utf8))
        #expect(driver.sent.first?.contains("Connection: close") == true)
        #expect(driver.closed || driver.machine.wantsLinger)
    }

    @Test func malformedChunkAbortsTheUpload() {
        let responder = TestResponder()
        var driver = Driver(responder: responder)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n")
        #expect(responder.consumers.first?.aborted == true)
        #expect(responder.consumers.first?.finished == false)
        #expect(driver.sent.first?.hasPrefix("HTTP/1.1 400") == true)
    }

    @Test func headTimeoutAnswers408() {
        var configuration = ConnectionConfiguration()
        configuration.headTimeout = 5_000
        var driver = Driver(responder: TestResponder(), configuration: configuration)
        driver.receive("GET / HT")
        driver.now = 4_999
        #expect(driver.machine.checkTimeouts(now: driver.now, wallClock: 0) == nil)
        driver.now = 5_000
        guard case .send(let response)? = driver.machine.checkTimeouts(now: driver.now, wallClock: 0) else {
            Issue.record("expected a 408")
            return
        }
        #expect(response.status == .requestTimeout)
    }

    @Test func bodyTimeoutAbortsTheUpload() {
        var configuration = ConnectionConfiguration()
        configuration.bodyTimeout = 1_000
        let responder = TestResponder()
        var driver = Driver(responder: responder, configuration: configuration)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000000\r\n\r\nabc")
        driver.now = 999
        driver.receive("d")
        #expect(driver.machine.checkTimeouts(now: 1_500, wallClock: 0) == nil)
        #expect(driver.machine.checkTimeouts(now: 2_000, wallClock: 0) != nil)
        #expect(responder.consumers.first?.aborted == true)
    }

    @Test func idleKeepAliveConnectionClosesSilently() {
        var configuration = ConnectionConfiguration()
        configuration.idleTimeout = 100
        var driver = Driver(responder: TestResponder(), configuration: configuration)
        driver.receive("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        guard case .close? = driver.machine.checkTimeouts(now: 100, wallClock: 0) else {
            Issue.record("expected a silent close")
            return
        }
    }

    /// The I/O layer sizes its reads by this: it must follow the body and be 0 outside one.
    @Test func bodyBytesCertainToFollowTracksTheBody() {
        let responder = TestResponder()
        var driver = Driver(responder: responder)
        #expect(driver.machine.bodyBytesCertainToFollow == 0)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
        #expect(driver.machine.bodyBytesCertainToFollow == 10)
        driver.receive("hell")
        #expect(driver.machine.bodyBytesCertainToFollow == 6)
        driver.receive("oworld")
        #expect(driver.machine.bodyBytesCertainToFollow == 0)
        #expect(responder.consumers.first?.finished == true)

        var aborted = Driver(responder: responder)
        aborted.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf")
        #expect(aborted.machine.bodyBytesCertainToFollow == 96)
        _ = aborted.machine.inputEnded(now: 0, wallClock: 0)
        #expect(aborted.machine.bodyBytesCertainToFollow == 0)
    }

    @Test func disconnectMidBodyAborts() {
        let responder = TestResponder()
        var driver = Driver(responder: responder)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf")
        _ = driver.machine.inputEnded(now: 0, wallClock: 0)
        #expect(responder.consumers.first?.aborted == true)
    }

    @Test func shutdownClosesIdleConnectionsAndEndsKeepAlive() {
        var idle = Driver(responder: TestResponder())
        idle.receive("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        guard case .close? = idle.machine.beginShutdown(now: 0) else {
            Issue.record("a connection idle between requests closes at once")
            return
        }
        let responder = TestResponder()
        var busy = Driver(responder: responder)
        busy.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab")
        #expect(busy.machine.beginShutdown(now: 0) == nil)
        busy.receive("cd")
        #expect(responder.consumers.first?.finished == true)
        #expect(busy.sent.first?.contains("Connection: close") == true)
        #expect(busy.closed)
    }

    /// A connection accepted just before shutdown, its request not yet read, is served that
    /// request (with Connection: close); one that sends nothing closes after the grace.
    @Test func shutdownServesTheFirstRequestOfAFreshConnection() {
        var fresh = Driver(responder: TestResponder())
        #expect(fresh.machine.beginShutdown(now: 0) == nil)
        fresh.receive("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(fresh.sent.first?.hasPrefix("HTTP/1.1 200 ") == true)
        #expect(fresh.sent.first?.contains("Connection: close") == true)

        var silent = Driver(responder: TestResponder())
        #expect(silent.machine.beginShutdown(now: 0) == nil)
        #expect(silent.machine.checkTimeouts(now: 1, wallClock: 0) == nil)
        #expect(silent.machine.checkTimeouts(now: ConnectionStateMachine.firstRequestGrace, wallClock: 0) == .close)
    }

    /// Past the drain deadline an upload still arriving is told why (503, Connection:
    /// close) and its body discarded; a connection whose response has begun gets no second one.
    @Test func drainDeadlineAnswersAnUploadStillArriving() {
        let responder = TestResponder()
        var uploading = Driver(responder: responder)
        uploading.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf")
        _ = uploading.machine.beginShutdown(now: 0)
        guard case .send(let response)? = uploading.machine.drainDeadlinePassed(now: 0, wallClock: 0) else {
            Issue.record("expected a 503")
            return
        }
        let head = String(decoding: response.head, as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 503 "))
        #expect(head.contains("Connection: close"))
        #expect(responder.consumers.first?.aborted == true)

        var answered = Driver(responder: TestResponder())
        answered.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd")
        #expect(answered.machine.drainDeadlinePassed(now: 0, wallClock: 0) == nil)
    }
}

extension ConnectionStateMachine.Action: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.readMore, .readMore), (.close, .close): true
        case (.sendInterim(let a), .sendInterim(let b)): a == b
        case (.send(let a), .send(let b)): a.head == b.head
        default: false
        }
    }
}

extension ConnectionStateMachineTests {
    @Test(arguments: ["Content-Length: 0\r\n", ""])
    func emptyBodyFinishesWithoutWaitingForInput(framingHeader: String) {
        let responder = TestResponder()
        var driver = Driver(responder: responder)
        driver.receive("PUT /empty HTTP/1.1\r\nHost: x\r\n\(framingHeader)\r\n")
        #expect(responder.consumers.first?.finished == true)
        #expect(driver.sent.first?.hasPrefix("HTTP/1.1 201 Created") == true)
    }
}
