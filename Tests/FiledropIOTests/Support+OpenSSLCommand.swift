import Foundation
import Glibc

/// The `openssl` command-line tool as an outside witness of what libcrypto made here: run
/// with a deadline, stdout and stderr together.
enum OpenSSLCommand {
    struct Outcome {
        var status: Int32
        var output: String
    }

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }
    static let path = "/usr/bin/openssl"

    static func run(_ arguments: [String], deadline seconds: Double = 20) throws -> Outcome {
        try runProgram(path, arguments, deadline: seconds)
    }
}

/// Runs `program`, killing it after `seconds`; stdout and stderr together.
func runProgram(_ program: String, _ arguments: [String], deadline seconds: Double = 20) throws -> OpenSSLCommand.Outcome {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let pid = process.processIdentifier
    let timer = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: timer)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    timer.cancel()
    return OpenSSLCommand.Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
}

/// A fresh directory under /tmp for one test, removed when the value goes away; `tls` is a
/// not-yet-existing subdirectory, for the code under test to create.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/filedrop-tls-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        path = String(cString: created)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    var tls: String { path + "/state/tls" }

    func write(_ bytes: [UInt8], to file: String, mode: mode_t = 0o644) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        chmod(file, mode)
    }

    func contents(_ file: String) -> [UInt8]? {
        FileManager.default.contents(atPath: file).map(Array.init)
    }

    func mode(_ file: String) -> UInt32? {
        var status = stat()
        return stat(file, &status) == 0 ? UInt32(status.st_mode) & 0o7777 : nil
    }
}
