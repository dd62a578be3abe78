import FiledropCore
import FiledropHTTP
import Testing

@testable import FiledropSystemd

/// The text sinks format access-log records straight into bytes; the line must be exactly
/// what logging `record.event` through the general path writes, whatever the record holds.
@Suite struct AccessLogLineTests {
    static func record(
        method: HTTPMethod = .get, target: String = "/files/small.bin", status: Int = 200,
        micros: UInt64 = 1_729, client: String = "127.0.0.1", cut: Bool = false
    ) -> AccessLogRecord {
        AccessLogRecord(
            method: method, target: target, status: status, bytesSent: 4096, bytesReceived: 0,
            durationMicroseconds: micros, client: client, responseCut: cut)
    }

    static let records: [AccessLogRecord] = [
        record(),
        record(target: "/files/a%20b.txt?download", micros: 0),
        record(target: "/files/\"quoted\".txt", micros: 999),
        record(target: "/files/a b", micros: 1_000),
        record(target: "/files/back\\slash", client: "::1"),
        record(target: "/files/😀.bin", client: "[::1]"),
        record(target: "/files/x\u{202E}y"),
        record(method: .other("-"), target: "-", status: 400, micros: 123_456_789),
        record(method: .put, target: "/files/up.bin", status: 201, client: "10.0.0.7", cut: true),
        record(client: ""),
    ]

    @Test(arguments: records)
    func textLineMatchesTheEventLine(record: AccessLogRecord) throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let sink = TextLogSink(
            writer: LogLineWriter(fileDescriptor: pipe.writeEnd), minimumLevel: .info, colored: true,
            timestamp: { "2026-11-30 07:00:00" })
        sink.logRequest(record)
        sink.log(record.event)
        let lines = pipe.lines()
        #expect(lines.count == 2)
        #expect(lines.first == lines.last)
    }

    @Test(arguments: records)
    func priorityLineMatchesTheEventLine(record: AccessLogRecord) throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let sink = PriorityPrefixLogSink(writer: LogLineWriter(fileDescriptor: pipe.writeEnd), minimumLevel: .debug)
        sink.logRequest(record)
        sink.log(record.event)
        let lines = pipe.lines()
        #expect(lines.count == 2)
        #expect(lines.first == lines.last)
    }

    @Test func plainRecordLine() throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let sink = TextLogSink(
            writer: LogLineWriter(fileDescriptor: pipe.writeEnd), minimumLevel: .info, colored: false,
            timestamp: { "T" })
        sink.logRequest(Self.record(target: "/files/a b", micros: 12_005))
        #expect(
            pipe.lines() == [
                #"T info    GET /files/a b 200 method=GET path="/files/a b" status=200 bytes=4096 received=0 duration=12.005ms client=127.0.0.1"#
            ])
    }

    @Test(arguments: [LogLevel.notice, .warning, .error])
    func belowTheMinimumLevelNothingIsWritten(minimum: LogLevel) throws {
        let pipe = try LogPipe()
        defer { pipe.close() }
        let writer = LogLineWriter(fileDescriptor: pipe.writeEnd)
        TextLogSink(writer: writer, minimumLevel: minimum, colored: false, timestamp: { "T" }).logRequest(Self.record())
        PriorityPrefixLogSink(writer: writer, minimumLevel: minimum).logRequest(Self.record())
        #expect(pipe.lines().isEmpty)
    }
}

extension AccessLogRecord: CustomTestStringConvertible {
    public var testDescription: String { "\(method) \(target) \(client)" }
}
