import FiledropHTTP
import Testing

/// The engine stands alone: an application of a few lines, served through the connection
/// state machine in memory, with no other filedrop module in sight.
struct ToyApplicationTests {
    /// Says hello at `/`, counts the bytes of a `POST /count` (after blocking work, as a
    /// real application would fsync), and labels its routes for its own metrics.
    struct Toy: HTTPResponder {
        static let hello = RequestLabel(rawValue: 1)
        static let count = RequestLabel(rawValue: 2)

        func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
            var label = RequestLabel.unlabelled
            return route(head, context: context, label: &label)
        }

        func route(_ head: RequestHead, context: RequestContext, label: inout RequestLabel) -> RouteDecision {
            switch (head.method, head.path) {
            case (.get, "/"):
                label = Self.hello
                return .respond(Response(status: .ok, body: .bytes(Array("hello \(context.client)\n".utf8))))
            case (.post, "/count"):
                label = Self.count
                return .readBody(Counter())
            default:
                return .respond(.plainError(.notFound))
            }
        }
    }

    final class Counter: RequestBodyConsumer {
        var bytes = 0

        func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
            self.bytes += bytes.count
            return .accepted
        }

        func finish(trailers: HTTPHeaders) -> Deferred<Response> {
            let counted = bytes
            return .after(BlockingWork("count") {}) {
                .ready(Response(status: .ok, body: .bytes(Array("\(counted) bytes\n".utf8))))
            }
        }

        func abort() {}
    }

    /// Plays the server: feeds `input`, carries out every action (blocking work inline), and
    /// returns what was written and the label of each answered request.
    static func serve(_ input: String, responder: some HTTPResponder = Toy()) -> (output: String, labels: [RequestLabel]) {
        var machine = ConnectionStateMachine(
            configuration: ConnectionConfiguration(), responder: responder,
            context: RequestContext(client: "toy-client", wallClockSeconds: 0), now: 0)
        var buffer = Array(input.utf8)
        var output = ""
        var labels: [RequestLabel] = []
        var action = ConnectionStateMachine.Action.readMore
        while true {
            switch action {
            case .readMore:
                guard !buffer.isEmpty else { return (output, labels) }
                let (consumed, next) = buffer.withUnsafeBytes { machine.process($0, now: 0, wallClock: 0) }
                buffer.removeFirst(consumed)
                if consumed == 0, case .readMore = next { return (output, labels) }
                action = next
            case .sendInterim(let bytes):
                output += String(decoding: bytes, as: UTF8.self)
                action = machine.interimSent(now: 0)
            case .runBlocking(let work):
                work.run()
                action = machine.blockingWorkFinished(now: 0, wallClock: 0)
            case .send(let response):
                output += String(decoding: response.head, as: UTF8.self)
                if case .bytes(let body) = response.body { output += String(decoding: body, as: UTF8.self) }
                labels.append(machine.currentRequest?.label ?? .unlabelled)
                action = machine.responseSent(now: 0)
            case .close:
                return (output, labels)
            }
        }
    }

    @Test func answersARequestFromTheApplication() {
        let (output, labels) = Self.serve("GET / HTTP/1.1\r\nHost: toy\r\n\r\n")
        #expect(output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(output.contains("\r\nContent-Length: 17\r\n"))
        #expect(output.hasSuffix("\r\n\r\nhello toy-client\n"))
        #expect(labels == [Toy.hello])
    }

    @Test func streamsAChunkedBodyToTheApplicationAndKeepsTheConnection() {
        let (output, labels) = Self.serve(
            "POST /count HTTP/1.1\r\nHost: toy\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
                + "GET / HTTP/1.1\r\nHost: toy\r\n\r\n")
        #expect(output.contains("\r\n\r\n11 bytes\n"))
        #expect(output.hasSuffix("hello toy-client\n"))
        #expect(labels == [Toy.count, Toy.hello])
    }

    @Test func expectContinueComesBeforeTheBody() {
        let (output, _) = Self.serve("POST /count HTTP/1.1\r\nHost: toy\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc")
        #expect(output.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"))
        #expect(output.hasSuffix("3 bytes\n"))
    }

    /// The engine's own errors, in its plain words, with the engine's defensive fields.
    @Test func aMalformedHeadGetsThePlainErrorAndTheConnectionCloses() {
        let (output, labels) = Self.serve("GET / HTTP/1.1\r\nHost toy\r\n\r\nGET / HTTP/1.1\r\nHost: toy\r\n\r\n")
        #expect(output.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(output.contains("\r\nX-Content-Type-Options: nosniff\r\n"))
        #expect(output.contains("\r\nConnection: close\r\n"))
        #expect(output.contains("\r\n\r\n400 Bad Request: A request header is malformed"))
        #expect(!output.contains("hello"))
        #expect(labels == [.unlabelled])
    }

    @Test func anUnknownPathIsTheApplicationsNotFound() {
        let (output, _) = Self.serve("GET /nothing HTTP/1.1\r\nHost: toy\r\n\r\n")
        #expect(output.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(output.hasSuffix("\r\n\r\n404 Not Found: Nothing is here.\n"))
    }
}
