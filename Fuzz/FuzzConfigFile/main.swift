import FiledropCore

/// libFuzzer entry for the configuration file (built by `scripts/fuzz.sh FuzzConfigFile`):
/// any bytes as `/etc/filedrop/filedrop.conf` through the real loader. It must never trap;
/// the same text must give the same answer twice; an error message must carry no control
/// character (it reaches a terminal and the journal); an accepted configuration must hold
/// only values the key table allows, and the file with CRLF line ends must mean the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let first = load(text)
    precondition(first == load(text), "the same file gave two answers")
    switch first {
    case .failure(let error):
        let message = error.description
        precondition(!message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control character in \(message)")
    case .success(let configuration):
        precondition(configuration.maxConnections >= 1 && configuration.maxConnectionsPerClient >= 1)
        precondition(configuration.maxUploadsPerClient >= 1 && (0...1024).contains(configuration.threads))
        precondition(configuration.title.count <= 200 && !configuration.title.isEmpty)
        precondition(!configuration.listen.isEmpty)
        precondition(configuration.allowedHosts.allSatisfy { !$0.isEmpty && !$0.contains(",") && !$0.contains(" ") })
        if !text.contains("\r") {
            let crlf = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
            precondition(load(crlf) == first, "CRLF line ends changed the meaning")
        }
    }
    return 0
}

private func load(_ text: String) -> Result<Configuration, ConfigurationError> {
    do {
        let command = try ConfigurationLoader.parse(
            arguments: ["--config", "/fuzz.conf"], environment: [:],
            readFile: { $0 == "/fuzz.conf" ? text : nil }, fileExists: { $0 == "/fuzz.conf" })
        guard case .run(let configuration) = command else { preconditionFailure("a file cannot ask for help") }
        return .success(configuration)
    } catch {
        return .failure(error)
    }
}
