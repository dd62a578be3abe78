import Dispatch
import FiledropCore
import FiledropHTTP
import Glibc
import Testing

@testable import FiledropSystemd

@Suite struct LogSinkTests {
    static let upload = LogEvent(
        level: .info, kind: .uploadFinished, message: "upload finished",
        fields: [("file", "a.txt"), ("size", "12"), ("client", "127.0.0.1")])

    @Test func textLineShape() throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let sink = TextLogSink(
            writer: LogLineWriter(fileDescriptor: pipe.writeEnd), minimumLevel: .info, colored: false,
            timestamp: { "2026-11-30 07:00:00" })
        sink.log(Self.upload)
        sink.log(LogEvent(level: .warning, message: "disk low"))
        #expect(
            pipe.lines() == [
                "2026-11-30 07:00:00 info    upload finished file=a.txt size=12 client=127.0.0.1",
                "2026-11-30 07:00:00 warning disk low",
            ])
    }

    @Test func realTimestampLooksLikeADate() throws {
        let stamp = LocalTimestamp.now()
        let shape = stamp.map { $0.isNumber ? "9" : String($0) }.joined()
        #expect(shape == "9999-99-99 99:99:99")
    }

    @Test func userTextIsEscapedAndQuoted() throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let sink = TextLogSink(
            writer: LogLineWriter(fileDescriptor: pipe.writeEnd), minimumLevel: .debug, colored: false,
            timestamp: { "T" })
        sink.log(
            LogEvent(
                level: .error, message: "bad name\n\u{1B}[2J",
                fields: [
                    ("file", "a b\n\"c\".txt"), ("path", "/x\\y"), ("empty", ""), ("client", "[::1]:5"),
                ]))
        #expect(
            pipe.lines() == [
                #"T error   bad name\n\x1b[2J file="a b\n\"c\".txt" path="/x\\y" empty="" client=[::1]:5"#
            ])
    }

    @Test func colorsOnlyTheLevelWord() throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let sink = TextLogSink(
            writer: LogLineWriter(fileDescriptor: pipe.writeEnd), minimumLevel: .debug, colored: true,
            timestamp: { "T" })
        sink.log(LogEvent(level: .error, message: "boom"))
        sink.log(LogEvent(level: .info, message: "fine"))
        #expect(pipe.lines() == ["T \u{1B}[31merror\u{1B}[0m   boom", "T info    fine"])
    }

    @Test(arguments: LogLevel.allCases)
    func minimumLevelIsRespected(minimum: LogLevel) throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let writer = LogLineWriter(fileDescriptor: pipe.writeEnd)
        let sinks: [any LogSink] = [
            TextLogSink(writer: writer, minimumLevel: minimum, colored: false, timestamp: { "T" }),
            PriorityPrefixLogSink(writer: writer, minimumLevel: minimum),
        ]
        for sink in sinks {
            for level in LogLevel.allCases { sink.log(LogEvent(level: level, message: level.name)) }
        }
        let expected = LogLevel.allCases.filter { $0 >= minimum }.count
        #expect(pipe.lines().count == 2 * expected)
    }

    @Test func priorityPrefixLines() throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let sink = PriorityPrefixLogSink(writer: LogLineWriter(fileDescriptor: pipe.writeEnd), minimumLevel: .debug)
        sink.log(Self.upload)
        sink.log(LogEvent(level: .error, message: "cannot bind", fields: [("address", "[::]:80")]))
        sink.log(LogEvent(level: .debug, message: "tick"))
        #expect(
            pipe.lines() == [
                "<6>upload finished file=a.txt size=12 client=127.0.0.1",
                "<3>cannot bind address=[::]:80",
                "<7>tick",
            ])
    }

    /// Lines longer than PIPE_BUF from many threads into a pipe drained slowly: a writer
    /// that finds the pipe full is suspended mid-line, and without the writer's lock
    /// another thread's bytes would land inside its line.
    @Test func concurrentLinesStayWhole() throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let writer = LogLineWriter(fileDescriptor: pipe.writeEnd)
        let threads = 8
        let linesPerThread = 40
        let length = 6000
        let reader = DispatchQueue(label: "reader")
        nonisolated(unsafe) var collected: [UInt8] = []
        let readingDone = DispatchSemaphore(value: 0)
        let expectedBytes = threads * linesPerThread * (length + 1)
        reader.async {
            var buffer = [UInt8](repeating: 0, count: 8192)
            var pollEntry = pollfd(fd: pipe.readEnd, events: Int16(POLLIN), revents: 0)
            while collected.count < expectedBytes, poll(&pollEntry, 1, 5000) == 1 {
                let count = read(pipe.readEnd, &buffer, buffer.count)
                if count > 0 { collected += buffer[0..<count] }
                usleep(100)
            }
            readingDone.signal()
        }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let letter = Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(thread)))
            let line = String(repeating: letter, count: length)
            for _ in 0..<linesPerThread { writer.write(line: line) }
        }
        readingDone.wait()
        let lines = collected.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == threads * linesPerThread)
        #expect(lines.allSatisfy { $0.count == length && Set($0).count == 1 })
    }

    @Test func journalFields() {
        let event = LogEvent(
            level: .warning, kind: .uploadFailed, message: "upload failed\nagain",
            fields: [("file", "x\u{1B}.bin"), ("client-ip", "10.0.0.7"), ("ünï", "1")])
        let fields = JournalLogSink.fields(for: event)
        #expect(
            fields.map(\.name) == [
                "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "MESSAGE_ID", "FILEDROP_FILE", "FILEDROP_CLIENT_IP", "FILEDROP__N_",
            ])
        #expect(
            fields.map(\.value) == [
                #"upload failed\nagain"#, "4", "filedrop", "82e77480c00442998efbc80ddce130f3", #"x\x1b.bin"#, "10.0.0.7", "1",
            ])
        #expect(!JournalLogSink.fields(for: LogEvent(level: .info, message: "m")).contains { $0.name == "MESSAGE_ID" })
        #expect(JournalLogSink.fieldName(for: String(repeating: "k", count: 100)).count == 64)
    }

    @Test func messageIDsAreDistinct128BitIDs() {
        let kinds: [LogEventKind] = [
            .request, .started, .stopping, .reloaded, .uploadStarted, .uploadFinished, .uploadFailed, .uploadRefused,
            .configInvalid, .requestsNotLogged,
        ]
        let ids = kinds.compactMap(\.messageID)
        #expect(ids.count == kinds.count)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy { "0123456789abcdef".contains($0) } })
        #expect(LogEventKind.general.messageID == nil)
    }

    @Test func chooserPicksTextWithoutJournalStream() throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        for environment in [[:], ["JOURNAL_STREAM": "1:2"], ["JOURNAL_STREAM": "nonsense"], ["JOURNAL_STREAM": ""]] {
            let plain = makeLogSink(environment: environment, isTerminal: false, fileDescriptor: pipe.writeEnd)
            #expect((plain as? TextLogSink)?.colored == false)
            let terminal = makeLogSink(
                environment: environment, isTerminal: true, minimumLevel: .debug, fileDescriptor: pipe.writeEnd)
            #expect((terminal as? TextLogSink)?.colored == true)
            #expect((terminal as? TextLogSink)?.minimumLevel == .debug)
        }
    }
}
