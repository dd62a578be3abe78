import Foundation
import Glibc

/// The real `filedrop` binary started for a test (swift-nio `IntegrationTests/`, dufs
/// `tests/fixtures.rs`): its own save directory, port 0, and readiness learned from a
/// NOTIFY_SOCKET the test owns - no sleeps, no fixed ports.
final class DaemonProcess {
    let process = Process()
    let saveDirectory: URL
    private(set) var port: UInt16 = 0
    private let notifyPath: String
    private let notifyDescriptor: Int32
    private let stderrPipe = Pipe()

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    static var binary: String {
        if let explicit = ProcessInfo.processInfo.environment["FILEDROP_BIN"] { return explicit }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for configuration in ["release", "debug"] {
            let candidate = root.appendingPathComponent(".build/\(configuration)/filedrop").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return root.appendingPathComponent(".build/debug/filedrop").path
    }

    static var webRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("web").path
    }

    init(arguments: [String] = []) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("filedrop-it-\(UUID().uuidString)")
        saveDirectory = base.appendingPathComponent("save")
        try FileManager.default.createDirectory(at: saveDirectory, withIntermediateDirectories: true)
        notifyPath = base.appendingPathComponent("notify").path
        notifyDescriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(notifyPath.utf8)
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(notifyDescriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw DaemonError.setup("bind notify socket: errno \(errno)") }

        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments =
            ["--listen", "127.0.0.1:0", "--save-dir", saveDirectory.path, "--web-root", Self.webRoot, "--config="] + arguments
        // Other suites in this process set LISTEN_FDS and friends while they test socket
        // activation; the daemon must not inherit them.
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in
            !["LISTEN_", "NOTIFY_", "WATCHDOG_", "FILEDROP_", "JOURNAL_STREAM"].contains { key.hasPrefix($0) }
        }
        environment["NOTIFY_SOCKET"] = notifyPath
        process.environment = environment
        process.standardError = stderrPipe
        try process.run()
        try waitUntilReady()
    }

    private func waitUntilReady() throws {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(notifyDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(notifyDescriptor, &buffer, buffer.count, 0)
            guard count > 0 else { throw DaemonError.setup("the daemon did not report READY=1 within 10 s") }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            let fields = text.split(separator: "\n")
            guard fields.contains("READY=1") else { continue }
            if let listen = fields.first(where: { $0.hasPrefix("X_FILEDROP_LISTEN=") }),
                let first = listen.dropFirst("X_FILEDROP_LISTEN=".count).split(separator: ",").first,
                let colon = first.lastIndex(of: ":"), let port = UInt16(first[first.index(after: colon)...])
            {
                self.port = port
                return
            }
            throw DaemonError.setup("READY=1 without X_FILEDROP_LISTEN: \(text)")
        }
    }

    /// Files in the save directory, hidden ones included (a leak shows up here).
    func storedNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: saveDirectory.path).sorted()
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        close(notifyDescriptor)
        try? FileManager.default.removeItem(at: saveDirectory.deletingLastPathComponent())
    }

    deinit { stop() }
}

enum DaemonError: Error {
    case setup(String)
}
