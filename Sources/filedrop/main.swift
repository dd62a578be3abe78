import FiledropCore
import FiledropIO
import FiledropSystemd
import Glibc

struct Hello: HTTPResponder {
    func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        if head.method == .put || head.method == .post {
            return .readBody(Sink())
        }
        return .respond(Response(status: .ok, headers: ["Content-Type": "text/plain"], body: .bytes(Array("hello\n".utf8))))
    }
}
final class Sink: RequestBodyConsumer {
    var n = 0
    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) { n += bytes.count }
    func finish(trailers: HTTPHeaders) -> Response { Response(status: .created, body: .bytes(Array("got \(n)\n".utf8))) }
    func abort() {}
}
struct StderrSink: LogSink {
    func log(_ event: LogEvent) {
        let line = event.message + " " + event.fields.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
let port = UInt16(CommandLine.arguments.dropFirst().first ?? "8080") ?? 8080
let listener = try ListeningSocket.bind(host: "", port: port)
var config = ServerConfiguration()
let server = try HTTPServer(listeners: [listener], configuration: config, responder: Hello(), log: StderrSink())
try server.handleSignals([SIGTERM, SIGINT]) { _ in server.beginShutdown(deadline: Clock.monotonicNanoseconds() + 5_000_000_000) }
print("listening on \(listener.address)")
server.run()
