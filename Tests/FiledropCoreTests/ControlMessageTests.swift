import FiledropCore
import Testing

/// The control socket's lines: one JSON object each way, newline-terminated, and a clear
/// reply for anything that is not a request.
@Suite struct ControlMessageTests {
    @Test func aRequestRoundTrips() {
        let line = ControlRequest(command: "reload").line
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(ControlRequest.parse(line.dropLast()) == .request(ControlRequest(command: "reload")))
    }

    @Test func aReplyRoundTripsOnOneLineWhateverItsMessage() {
        let reply = ControlReply(ok: false, message: "line one\nline \"two\"\u{1}")
        let line = reply.line
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(ControlReply.parse(line.dropLast()) == reply)
    }

    @Test(arguments: ["reload", "", "[1,2]", "{\"verb\":\"reload\"}", "{\"command\":7}", "{\"command\":\"\"}"])
    func whatIsNotARequestGetsASentence(_ text: String) {
        guard case .invalid(let reply) = ControlRequest.parse(Array(text.utf8)) else {
            Issue.record("parsed \(text)")
            return
        }
        #expect(!reply.ok)
        #expect(reply.message.hasPrefix("the request "))
    }

    @Test func anUnknownCommandNamesTheKnownOnes() {
        let reply = ControlReply.unknownCommand("frob\n", known: ["reload", "link"])
        #expect(reply == ControlReply(ok: false, message: "unknown command \"frob\\n\"; this filedrop answers link, reload"))
    }
}
