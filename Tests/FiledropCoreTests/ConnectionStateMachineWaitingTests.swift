import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The machine while blocking work is out (swift-nio's NIOThreadPool hand-over, driven in
/// memory): it stops reading, keeps what a paused consumer did not take, finishes what must
/// finish after a disconnect, and answers 503 when the work cannot be queued.
@Suite struct ConnectionStateMachineWaitingTests {
    typealias Driver = ConnectionStateMachineTests.Driver

    /// Takes bodies, pausing for "write-back" after every `pauseEvery` bytes and publishing in
    /// blocking work at the end; GET /slow answers after a blocking "password" check.
    final class PausingResponder: HTTPResponder, @unchecked Sendable {
        var consumers: [PausingConsumer] = []
        var pauseEvery = 4
        func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
            if head.path == "/slow" {
                return .blocking("password", { true }) { correct in
                    .respond(Response(status: correct ? .ok : .unauthorized, body: .bytes(Array("checked".utf8))))
                }
            }
            let consumer = PausingConsumer(pauseEvery: pauseEvery)
            consumers.append(consumer)
            return .readBody(consumer)
        }
    }

    /// A driver that holds blocking work, as a busy worker would, until `release`.
    static func holdingDriver(_ responder: PausingResponder) -> Driver {
        var driver = Driver(responder: responder)
        driver.holdsWork = true
        return driver
    }

    @Test func aPausedBodyIsNotOfferedMoreUntilItsWorkIsBack() {
        let responder = PausingResponder()
        var driver = Self.holdingDriver(responder)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabcdefghij")
        #expect(driver.held.map(\.label) == ["write-back"])
        #expect(responder.consumers[0].body == Array("abcd".utf8))
        #expect(driver.machine.isWaiting && !driver.machine.wantsInput)
        driver.release()
        #expect(responder.consumers[0].pacings == 1)
        #expect(responder.consumers[0].body == Array("abcdefgh".utf8))
        driver.release()
        // The body's end arrived with the held bytes: after them the publish goes out.
        #expect(driver.held.map(\.label) == ["publish"])
        driver.release()
        #expect(responder.consumers[0].body == Array("abcdefghij".utf8))
        #expect(responder.consumers[0].published)
        #expect(driver.sent.first?.hasPrefix("HTTP/1.1 201 Created") == true)
        #expect(driver.sent.first?.hasSuffix("stored 10") == true)
    }

    @Test(arguments: [1, 3, 7])
    func whateverTheSplitEveryByteArrivesOnceInOrder(split: Int) {
        let responder = PausingResponder()
        responder.pauseEvery = 3
        var driver = Driver(responder: responder)
        let payload = Array("the quick brown fox jumps".utf8)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        var chunks = ""
        for start in stride(from: 0, to: payload.count, by: split) {
            let piece = payload[start..<min(payload.count, start + split)]
            chunks += String(piece.count, radix: 16) + "\r\n" + String(decoding: piece, as: UTF8.self) + "\r\n"
        }
        for character in chunks + "0\r\n\r\n" { driver.receive(String(character)) }
        #expect(responder.consumers[0].body == payload)
        #expect(responder.consumers[0].pacings == payload.count / 3)
        #expect(driver.sent.first?.hasSuffix("stored \(payload.count)") == true)
    }

    @Test func aRouteWaitsForItsQuestionThenAnswers() {
        let responder = PausingResponder()
        var driver = Self.holdingDriver(responder)
        driver.receive("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(driver.held.count == 1)
        #expect(driver.sent.isEmpty)
        driver.release()
        // The pipelined second request is served after the first, never beside it.
        #expect(driver.sent.count == 1)
        #expect(driver.held.count == 1)
        driver.release()
        #expect(driver.sent.count == 2)
        #expect(driver.sent.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK") && $0.hasSuffix("checked") })
    }

    @Test func aClientGoneDuringPublishingStillGetsItsFilePublished() {
        let responder = PausingResponder()
        responder.pauseEvery = 100
        var driver = Self.holdingDriver(responder)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd")
        #expect(driver.held.map(\.label) == ["publish"])
        driver.machine.connectionFailed()
        #expect(!responder.consumers[0].aborted)
        driver.release()
        #expect(responder.consumers[0].published)
        #expect(!responder.consumers[0].aborted)
        #expect(driver.sent.isEmpty)
    }

    @Test func aClientGoneDuringAPauseHasItsUploadAbortedOnceTheWorkIsBack() {
        let responder = PausingResponder()
        var driver = Self.holdingDriver(responder)
        driver.receive("PUT /f HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabcdef")
        driver.machine.connectionFailed()
        #expect(!responder.consumers[0].aborted)
        driver.release()
        #expect(responder.consumers[0].pacings == 1)
        #expect(responder.consumers[0].aborted)
        #expect(responder.consumers[0].body == Array("abcd".utf8))
    }

    @Test func workTheWorkersCannotTakeIs503WithRetryAfter() {
        let responder = PausingResponder()
        var driver = Self.holdingDriver(responder)
        driver.receive("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        driver.held.removeAll()
        let action = driver.machine.blockingWorkRefused(now: 0, wallClock: 0)
        guard case .send(let response) = action else {
            Issue.record("expected a 503")
            return
        }
        let head = String(decoding: response.head, as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 503"))
        #expect(head.contains("Retry-After: 1\r\n"))
    }

    @Test func aRequestStartedDuringTheDrainIs503AndCloses() {
        var driver = Driver(responder: ConnectionStateMachineTests.TestResponder())
        driver.receive("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HT")
        #expect(driver.machine.beginShutdown(now: 0) == nil)
        driver.receive("TP/1.1\r\nHost: x\r\n\r\n")
        #expect(driver.sent.count == 2)
        #expect(driver.sent[1].hasPrefix("HTTP/1.1 503"))
        #expect(driver.sent[1].contains("Connection: close\r\n"))
        #expect(driver.sent[1].contains("Retry-After: 2\r\n"))
    }

    @Test func aResponseReadTooSlowlyIsCutOff() {
        var configuration = ConnectionConfiguration()
        configuration.minSendRate = 1000
        configuration.sendRateWindow = 10_000_000_000
        var machine = ConnectionStateMachine(
            configuration: configuration, responder: ConnectionStateMachineTests.TestResponder(),
            context: RequestContext(client: "test", wallClockSeconds: 0), now: 0)
        let request = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { machine.process($0, now: 0, wallClock: 0) }
        #expect(machine.isWriting)
        // 10 s at 1,000 B/s asks for 10,000 bytes: 9,999 in the window is too slow.
        machine.writeProgressed(9_999, now: 9_000_000_000)
        #expect(machine.checkTimeouts(now: 9_500_000_000, wallClock: 0) == nil)
        #expect(machine.checkTimeouts(now: 10_000_000_000, wallClock: 0) == .close)

        var fast = ConnectionStateMachine(
            configuration: configuration, responder: ConnectionStateMachineTests.TestResponder(),
            context: RequestContext(client: "test", wallClockSeconds: 0), now: 0)
        _ = request.withUnsafeBytes { fast.process($0, now: 0, wallClock: 0) }
        fast.writeProgressed(10_000, now: 9_000_000_000)
        #expect(fast.checkTimeouts(now: 10_000_000_000, wallClock: 0) == nil)
        // A new window starts: it too must carry its share.
        fast.writeProgressed(10, now: 19_000_000_000)
        #expect(fast.checkTimeouts(now: 20_000_000_000, wallClock: 0) == .close)
    }
}
