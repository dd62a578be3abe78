import Glibc
import Testing

/// Tests that change the process environment or descriptors 3 and up must not overlap:
/// setenv is not thread-safe and sd_listen_fds always starts at descriptor 3.
@Suite(.serialized) enum ProcessStateTests {}

/// Sets (or, for nil, removes) variables for the duration of `body`, then restores them.
func withEnvironment<Result>(_ variables: [String: String?], _ body: () throws -> Result) rethrows -> Result {
    var saved: [String: String?] = [:]
    for (name, value) in variables {
        // updateValue, because assigning nil through the subscript would drop the entry.
        saved.updateValue(getenv(name).map { String(cString: $0) }, forKey: name)
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    defer {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
    return try body()
}

/// A fresh directory under /tmp, removed with its contents by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/filedrop-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = try #require(made.map { String(cString: $0) })
    }

    func remove(files: [String]) {
        for file in files { unlink(path + "/" + file) }
        rmdir(path)
    }
}

/// The receiving end of NOTIFY_SOCKET: a datagram socket bound in a temporary directory,
/// as systemd itself listens.
final class NotifySocketReceiver {
    let directory: TemporaryDirectory
    let path: String
    let fd: Int32

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path + "/notify"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
    }

    /// The next datagram, or nil if none arrives within `milliseconds`.
    func receive(milliseconds: Int32 = 1000) -> String? {
        var pollEntry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollEntry, 1, milliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    deinit {
        close(fd)
        directory.remove(files: ["notify"])
    }
}

/// A pipe whose write end a log sink writes to and whose read end the test drains.
struct LogPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        readEnd = ends[0]
        writeEnd = ends[1]
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    /// Everything written so far, split into lines (the final newline dropped).
    func lines() -> [String] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func close() {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}
