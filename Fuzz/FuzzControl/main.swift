import FiledropCore

/// libFuzzer entry for the bytes the daemon reads that are not HTTP: a control-socket line
/// (from any local user the socket's mode lets in) and a queued hook run or webhook notice
/// read back from the save directory (a file anyone with write access there could alter).
/// Built by `scripts/fuzz.sh FuzzControl`. Properties:
/// - a request that parses names a command, and its own line parses back to that command;
/// - a reply that parses writes a line that parses back to the same reply;
/// - an entry that decodes encodes to bytes that decode to the same entry.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControl(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    if case .request(let request) = ControlRequest.parse(bytes) {
        precondition(!request.command.isEmpty)
        guard case .request(let again) = ControlRequest.parse(request.line.dropLast()) else {
            preconditionFailure("the line of \(request.command.debugDescription) does not parse")
        }
        precondition(again.command == request.command)
    }
    if let reply = ControlReply.parse(bytes) {
        precondition(ControlReply.parse(reply.line.dropLast()) == reply, "reply \(reply) does not read back")
    }
    if let run = try? PendingRun(decoding: bytes) {
        precondition((try? PendingRun(decoding: run.encoded)) == run, "entry \(run) does not read back")
    }
    return 0
}
