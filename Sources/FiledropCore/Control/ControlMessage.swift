/// The control socket's protocol: one JSON object per line each way, one request and one
/// reply per connection. A request names its command, `{"command":"reload"}`; commands that
/// take arguments add members of their own. The reply is `{"ok":true,"message":"..."}`: the
/// outcome, and a sentence for the person who asked.
public struct ControlRequest: Sendable, Equatable {
    public var command: String
    /// The whole request object, for commands that take arguments.
    public var members: [String: JSONValue]

    public init(command: String, members: [String: JSONValue] = [:]) {
        self.command = command
        self.members = members
        self.members["command"] = .string(command)
    }

    /// A request line is at most this long; a longer one is answered with an error.
    public static let maxLineBytes = 64 * 1024

    /// A request line read: the request, or the reply that says what is wrong with it.
    public enum Parsed: Sendable, Equatable {
        case request(ControlRequest)
        case invalid(ControlReply)
    }

    /// The request in `line` (without its newline), or the reply that says what is wrong with it.
    public static func parse(_ line: some Collection<UInt8>) -> Parsed {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line, maxBytes: maxLineBytes)
        } catch {
            return .invalid(ControlReply(ok: false, message: "the request is not a JSON object on one line (\(error))"))
        }
        guard let members = value.objectValue else {
            return .invalid(ControlReply(ok: false, message: "the request is not a JSON object on one line"))
        }
        guard let command = members["command"]?.stringValue, !command.isEmpty else {
            return .invalid(ControlReply(ok: false, message: "the request names no command (\"command\": \"reload\")"))
        }
        return .request(ControlRequest(command: command, members: members))
    }

    /// The line to send, newline included (`JSONWriter.document` ends with one).
    public var line: [UInt8] {
        JSONWriter.document { json in
            json.object { json in json.member("command", command) }
        }
    }
}

/// What the daemon answers: whether the command did what was asked, and a sentence saying what happened.
public struct ControlReply: Sendable, Equatable {
    public var ok: Bool
    public var message: String

    public init(ok: Bool, message: String) {
        self.ok = ok
        self.message = message
    }

    /// The reply to a command this daemon does not have.
    public static func unknownCommand(_ command: String, known: [String]) -> ControlReply {
        ControlReply(
            ok: false,
            message: "unknown command \"\(command.logEscaped)\"; this filedrop answers "
                + known.sorted().joined(separator: ", "))
    }

    /// The line to send, newline included (`JSONWriter.document` ends with one).
    public var line: [UInt8] {
        JSONWriter.document { json in
            json.object { json in
                json.member("ok", ok)
                json.member("message", message)
            }
        }
    }

    /// The reply in `line` (without its newline); nil when it is not one.
    public static func parse(_ line: some Collection<UInt8>) -> ControlReply? {
        guard let value = try? JSONValue.parse(line, maxBytes: ControlRequest.maxLineBytes),
            let ok = value["ok"]?.boolValue, let message = value["message"]?.stringValue
        else { return nil }
        return ControlReply(ok: ok, message: message)
    }
}
