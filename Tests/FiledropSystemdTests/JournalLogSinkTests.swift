import FiledropCore
import FiledropHTTP
import Glibc
import Testing

@testable import FiledropSystemd

extension ProcessStateTests {
    /// The journald path end to end. Where no journald runs (a container), the test plays
    /// journald: it binds /run/systemd/journal/socket itself, reads the native-protocol
    /// datagram libsystemd sends, then stops listening to see the fallback, and removes
    /// everything it created.
    @Suite struct JournalLogSinkTests {
        static let upload = LogEvent(
            level: .info, kind: .uploadFinished, message: "upload finished",
            fields: [("file", "a\nb.txt"), ("size", "12"), ("client", "127.0.0.1")])

        /// JOURNAL_STREAM naming the pipe's write end, as systemd sets it for our stderr.
        static func journalStream(of fd: Int32) throws -> [String: String] {
            var status = stat()
            try #require(fstat(fd, &status) == 0)
            return ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]
        }

        @Test func missingJournalSocketMeansPrefixedLines() throws {
            let pipe = try LogPipe()
            defer { pipe.close() }
            let sink = makeLogSink(
                environment: try Self.journalStream(of: pipe.writeEnd), isTerminal: true,
                fileDescriptor: pipe.writeEnd, journalSocketPath: "/nonexistent/journal/socket")
            #expect(sink is PriorityPrefixLogSink)
            sink.log(Self.upload)
            sink.log(LogEvent(level: .debug, message: "below the minimum"))
            #expect(pipe.lines() == [#"<6>upload finished file="a\nb.txt" size=12 client=127.0.0.1"#])
        }

        @Test func nativeEntriesAndFallbackWhenJournaldStops() throws {
            let socketPath = JournalLogSink.socketPath
            try #require(access(socketPath, F_OK) != 0, "a journald is running here; this test plays journald itself")
            let directories: [String] = ["/run/systemd", "/run/systemd/journal"]
            let createdDirectories = directories.filter { access($0, F_OK) != 0 }
            for directory in createdDirectories { mkdir(directory, 0o755) }
            let journald = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            defer {
                close(journald)
                unlink(socketPath)
                for directory in createdDirectories.reversed() { rmdir(directory) }
            }
            try #require(journald >= 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in socketPath.utf8.enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(journald, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(bound == 0)

            let pipe = try LogPipe()
            defer { pipe.close() }
            let sink = makeLogSink(
                environment: try Self.journalStream(of: pipe.writeEnd), isTerminal: false,
                minimumLevel: .info, fileDescriptor: pipe.writeEnd)
            let journal = try #require(sink as? JournalLogSink)
            sink.log(Self.upload)
            sink.log(LogEvent(level: .debug, message: "below the minimum"))

            var pollEntry = pollfd(fd: journald, events: Int16(POLLIN), revents: 0)
            try #require(poll(&pollEntry, 1, 1000) == 1)
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(journald, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            try #require(count > 0)
            #expect(
                String(decoding: buffer[0..<count], as: UTF8.self) == """
                    MESSAGE=upload finished
                    PRIORITY=6
                    SYSLOG_IDENTIFIER=filedrop
                    MESSAGE_ID=2a513c64b70849ae9cba2de06aeadce0
                    FILEDROP_FILE=a\\nb.txt
                    FILEDROP_SIZE=12
                    FILEDROP_CLIENT=127.0.0.1

                    """)
            #expect(recv(journald, &buffer, buffer.count, Int32(MSG_DONTWAIT)) < 0, "the debug event must have been dropped")
            #expect(pipe.lines().isEmpty)

            // journald gone but its socket file left behind: sends fail, lines go to stderr.
            close(journald)
            #expect(journal.send(Self.upload) < 0)
            sink.log(Self.upload)
            #expect(pipe.lines() == [#"<6>upload finished file="a\nb.txt" size=12 client=127.0.0.1"#])
        }
    }
}
