import CLinux
import FiledropClient
import FiledropCore
import Foundation
import Glibc
import Synchronization

/// `filedrop send FILE... [--to URL]`, `filedrop get NAME [--from URL] [-o PATH]` and
/// `filedrop ls [DIR] [--from URL]`: the client commands, recognised by their first word
/// before the daemon's option parsing (which they leave untouched).
///
/// Exit codes, for scripts: 0 done; 1 a transfer failed (network, local file, interrupted);
/// 2 usage; 3 the server refused (its message is printed), or its certificate is not trusted
/// (the fingerprint is printed); 4 the server wants a password (401) or rejected the one given.
struct ClientCommandLine {
    enum Verb: String {
        case send, get, ls
    }

    enum ExitCode: Int32 {
        case ok = 0
        case transferFailed = 1
        case usage = 2
        case refused = 3
        case unauthorized = 4

        init(_ error: FiledropClientError) {
            switch error {
            case .refused, .untrustedServer: self = .refused
            case .unauthorized: self = .unauthorized
            case .network, .invalidResponse, .localFile, .cancelled: self = .transferFailed
            }
        }
    }

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static let usage = """
        usage: filedrop send FILE... [--to URL] [--as NAME] [--method automatic|multipart|put|tus] [--quiet] [TRUST]
               filedrop send --watch DIR [--to URL] [--after-send keep|delete|move:DIR] [--settle 2s] [--method ...] [TRUST]
               filedrop get NAME [--from URL] [-o PATH] [--quiet] [TRUST]
               filedrop ls [DIR] [--from URL] [TRUST]
        TRUST, for https:// URLs: --ca FILE | --fingerprint SHA256

        URL defaults to $FILEDROP_URL, else http://127.0.0.1:8080. A password comes from
        $FILEDROP_PASSWORD, or is asked for on the terminal when the server wants one.
        send: files of 8 MiB and more go up resumably (tus); sending an interrupted file
        again goes on where it stopped. get: resumes an interrupted download.
        send --watch: sends each file that appears in DIR (and those there at start) once
        its size and time stayed unchanged for --settle, skipping dotfiles and names
        ending in ~, .part, .tmp, .swp, .crdownload; checks the server's SHA-256 against
        its own, then keeps, deletes or moves (into a directory on the same file system)
        the local copy; waits out network loss and server restarts. Sent files are
        remembered in $XDG_STATE_HOME/filedrop/watch/ (else ~/.local/state/...), so a
        restart sends nothing twice. Runs until stopped.
        https://: the certificate is always verified. Trusted are the system's certificates,
        servers in ~/.config/filedrop/known_servers ("HOST:PORT SHA256-FINGERPRINT" lines),
        --ca FILE (only that CA, PEM or DER) or --fingerprint SHA256 (the certificate of the
        server's chain, CA or leaf, with that SHA-256, as AB:CD:... or hex). An unknown server
        is shown and asked about on a terminal (yes remembers it); in a script it exits 3.
        Exit codes: 0 done, 1 transfer failed, 2 usage, 3 refused by the server or its
        certificate not trusted, 4 password missing or wrong.
        """

    let verb: Verb
    var operands: [String] = []
    var url: URL
    var outputPath: String?
    var storedName: String?
    var method: FiledropClient.UploadMethod = .automatic
    var quiet = false
    /// `send --watch DIR`: the folder and what to do with sent files.
    var watch: FolderSender.Options?
    /// `--ca` or `--fingerprint`; nil for the default (system store, known_servers, ask).
    var requestedTrust: ServerTrust?
    let environment: [String: String]

    /// nil when `arguments` do not start with a client verb (the daemon's own command line).
    init?(arguments: [String], environment: [String: String]) throws(UsageError) {
        guard let first = arguments.first, let verb = Verb(rawValue: first) else { return nil }
        self.verb = verb
        self.environment = environment
        let defaultURL = environment["FILEDROP_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://127.0.0.1:8080"
        url = try Self.serverURL(defaultURL)
        var index = 1
        func value(_ option: String) throws(UsageError) -> String {
            guard index < arguments.count else { throw UsageError(description: "\(option) needs a value") }
            index += 1
            return arguments[index - 1]
        }
        var onlyOperands = false
        var afterSend: AfterSend?
        var settle: Duration?
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyOperands || !argument.hasPrefix("-") || argument == "-" {
                operands.append(argument)
                continue
            }
            switch (verb, argument) {
            case (_, "--"): onlyOperands = true
            case (_, "-h"), (_, "--help"): throw UsageError(description: "")
            case (.send, "--to"), (.get, "--from"), (.ls, "--from"): url = try Self.serverURL(try value(argument))
            case (.send, "--as"): storedName = try value(argument)
            case (.send, "--watch"):
                guard watch == nil else { throw UsageError(description: "--watch takes one folder") }
                watch = FolderSender.Options(folder: try value(argument))
            case (.send, "--after-send"):
                let text = try value(argument)
                guard let action = AfterSend(text) else {
                    throw UsageError(description: "--after-send must be keep, delete or move:DIR, not \(text)")
                }
                afterSend = action
            case (.send, "--settle"):
                let text = try value(argument)
                guard let duration = DurationText.parse(text), duration > .zero else {
                    throw UsageError(description: "--settle wants a duration such as 2s or 500ms, not \(text)")
                }
                settle = duration
            case (.send, "--method"):
                let text = try value(argument)
                guard let parsed = FiledropClient.UploadMethod(rawValue: text) else {
                    throw UsageError(description: "--method must be automatic, multipart, put or tus, not \(text)")
                }
                method = parsed
            case (.get, "-o"), (.get, "--output"): outputPath = try value(argument)
            case (.send, "-q"), (.send, "--quiet"), (.get, "-q"), (.get, "--quiet"): quiet = true
            case (_, "--ca"):
                guard requestedTrust == nil else { throw UsageError(description: "give --ca or --fingerprint, once") }
                requestedTrust = .certificateAuthority(URL(fileURLWithPath: try value(argument)))
            case (_, "--fingerprint"):
                guard requestedTrust == nil else { throw UsageError(description: "give --ca or --fingerprint, once") }
                let text = try value(argument)
                guard let pin = CertificateFingerprint(text) else {
                    throw UsageError(description: "--fingerprint wants a SHA-256 as AB:CD:... or 64 hex digits, not \(text)")
                }
                requestedTrust = .pinnedCertificate(pin)
            default: throw UsageError(description: "unknown option \(argument) for filedrop \(verb.rawValue)")
            }
        }
        if requestedTrust != nil, url.scheme?.lowercased() != "https" {
            throw UsageError(description: "--ca and --fingerprint are for https:// URLs")
        }
        switch verb {
        case .send where watch != nil:
            guard operands.isEmpty, storedName == nil else {
                throw UsageError(description: "--watch sends a folder's files: no FILE or --as besides")
            }
            if let afterSend { watch?.afterSend = afterSend }
            if let settle { watch?.settle = settle }
            if case .move(let directory) = watch?.afterSend {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw UsageError(description: "--after-send move:\(directory): not a directory")
                }
            }
        case .send:
            guard afterSend == nil, settle == nil else {
                throw UsageError(description: "--after-send and --settle go with --watch")
            }
            guard !operands.isEmpty else { throw UsageError(description: "name at least one file to send") }
            if storedName != nil, operands.count > 1 { throw UsageError(description: "--as names one file only") }
        case .get:
            guard operands.count == 1 else { throw UsageError(description: "name exactly one file to get") }
        case .ls:
            guard operands.count <= 1 else { throw UsageError(description: "list one folder at a time") }
        }
    }

    private static func serverURL(_ text: String) throws(UsageError) -> URL {
        // The standard library's search, not Foundation's: that one costs ICU pages of RSS.
        let hasScheme = text.utf8.indices.contains { text.utf8[$0...].starts(with: "://".utf8) }
        let withScheme = hasScheme ? text : "http://" + text
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw UsageError(description: "not an http:// URL: \(text)")
        }
        return url
    }

    /// The exit code of the client command `arguments` name, nil when they are the daemon's.
    static func runIfRequested(arguments: [String], environment: [String: String]) -> Int32? {
        do throws(UsageError) {
            return try ClientCommandLine(arguments: arguments, environment: environment)?.run()
        } catch  where error.description.isEmpty {
            ClientOutput.line(usage)
            return ExitCode.ok.rawValue
        } catch {
            ClientOutput.error("filedrop: \(error)\n\(usage)")
            return ExitCode.usage.rawValue
        }
    }

    /// Runs the command to its end and returns the exit code.
    func run() -> Int32 {
        // URLSession allocates received and sent buffers on libcurl's thread and frees them
        // on the delegate queue's; glibc's per-thread arenas then keep megabytes of freed
        // buffers each. One arena holds the client's peak near its working set.
        _ = mallopt(M_ARENA_MAX, 1)
        let result = ExitCodeBox()
        let semaphore = DispatchSemaphore(value: 0)
        let command = self
        Task {
            result.code = await command.execute()
            semaphore.signal()
        }
        semaphore.wait()
        return result.code.rawValue
    }

    private func execute() async -> ExitCode {
        var client = FiledropClient(baseURL: url, password: environment["FILEDROP_PASSWORD"])
        var relay: TLSRelay?
        if url.scheme?.lowercased() == "https" {
            let setup = HTTPSTrustSetup(
                url: url, requested: requestedTrust,
                knownServersFile: KnownServers.defaultFile(environment: environment))
            do throws(HTTPSTrustSetup.Failure) {
                relay = try setup.apply(to: &client)
            } catch {
                ClientOutput.error(error.message)
                return error.exitCode
            }
        }
        if let watch {
            return await FolderSender(options: watch, client: client, method: method).run(environment: environment)
        }
        var worst = ExitCode.ok
        var hinted = false
        for operand in verb == .ls ? [operands.first ?? ""] : operands {
            var outcome = await perform(operand, client: client)
            if case .failure(.unauthorized) = outcome, client.password == nil,
                let password = PasswordPrompt.read("Password for \(url.absoluteString): ")
            {
                client.password = password
                outcome = await perform(operand, client: client)
            }
            if case .failure(var error) = outcome {
                // The relay closed the connection unanswered: say why, not "no answer".
                if let failure = relay?.failure, case .network = error { error = failure }
                ClientOutput.error("filedrop \(verb.rawValue): \(operand): \(error)")
                if !hinted, let hint = PlainHTTPRefusalHint.text(for: error, url: url, verb: verb) {
                    ClientOutput.error(hint)
                    hinted = true
                }
                if worst == .ok { worst = ExitCode(error) }
            }
        }
        return worst
    }

    private func perform(_ operand: String, client: FiledropClient) async -> Result<Void, FiledropClientError> {
        do throws(FiledropClientError) {
            switch verb {
            case .send: try await send(operand, client: client)
            case .get: try await get(operand, client: client)
            case .ls: try await list(operand, client: client)
            }
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    private func send(_ path: String, client: FiledropClient) async throws(FiledropClientError) {
        let file = URL(fileURLWithPath: path)
        let name = storedName ?? file.lastPathComponent
        let display = TerminalProgress(label: name, verb: "sending", quiet: quiet)
        let result = try await client.upload(file, as: name, method: method) { display.show($0) }
        display.finish()
        let resumed = result.resumedFrom > 0 ? " (resumed at \(result.resumedFrom))" : ""
        // The server's SHA-256 of what it stored against the local file's: a send counts
        // only once both agree (a server with `sha256 = off` reports none to compare).
        var verified = ""
        if let stored = result.sha256 {
            let local = try LocalSHA256.of(file)
            guard local == stored else {
                throw .invalidResponse("the server stored a file with SHA-256 \(stored), but \(path) has \(local)")
            }
            verified = ", sha256 \(local) verified"
        }
        ClientOutput.line("sent \(result.name) \(result.size) bytes\(resumed)\(verified)")
    }

    private func get(_ name: String, client: FiledropClient) async throws(FiledropClientError) {
        let output = outputPath ?? String(name.split(separator: "/").last ?? Substring(name))
        let display = TerminalProgress(label: name, verb: "getting", quiet: quiet)
        let result = try await client.download(name, to: URL(fileURLWithPath: output)) { display.show($0) }
        display.finish()
        let resumed = result.resumedFrom > 0 ? " (resumed at \(result.resumedFrom))" : ""
        ClientOutput.line("got \(output) \(result.size) bytes\(resumed)")
    }

    private func list(_ directory: String, client: FiledropClient) async throws(FiledropClientError) {
        let listing = try await client.list(directory)
        for entry in listing.entries {
            let size = entry.size.map(String.init) ?? "-"
            let name = entry.type == .directory ? entry.name + "/" : entry.name
            ClientOutput.line("\(size)\t\(entry.mtime)\t\(ClientOutput.escaped(name))")
        }
    }
}

/// The exit code, handed from the command's task to the blocked main thread.
private final class ExitCodeBox: Sendable {
    private let stored = Mutex(ClientCommandLine.ExitCode.ok)
    var code: ClientCommandLine.ExitCode {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
