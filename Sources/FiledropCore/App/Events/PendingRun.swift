/// One hook run or webhook notice still to be done, as it is kept on disk until it is done
/// (README "Events"): the finished upload's record, how many attempts were made, and when
/// the next may start. Encoded as a flat JSON object of strings, so an entry a person opens
/// reads plainly and `FlatJSONObject` (strict, bounded) reads it back.
public struct PendingRun: Sendable, Equatable {
    public var event: UploadEvent
    /// Attempts made so far (a webhook retried after a 5xx); 0 for a new run.
    public var attempts: Int
    /// Milliseconds since 1970 before which the next attempt waits; 0: at once.
    public var notBefore: Int64

    public init(event: UploadEvent, attempts: Int = 0, notBefore: Int64 = 0) {
        self.event = event
        self.attempts = attempts
        self.notBefore = notBefore
    }

    /// An entry is a few hundred bytes; one far larger is not ours.
    public static let maxEncodedBytes = 16 << 10

    public var encoded: [UInt8] {
        JSONWriter.document { json in
            json.object { json in
                json.member("version", "1")
                json.member("kind", event.kind.rawValue)
                json.member("path", event.path)
                json.member("size", String(event.size))
                if let expected = event.expectedSize { json.member("expected_size", String(expected)) }
                json.member("client", event.client)
                if let method = event.method { json.member("method", method.rawValue) }
                json.member("time", String(event.time))
                if let reason = event.reason { json.member("reason", reason) }
                if let sha256 = event.sha256 { json.member("sha256", sha256) }
                json.member("attempts", String(attempts))
                json.member("not_before", String(notBefore))
            }
        }
    }

    /// Why an entry cannot be read back.
    public struct DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// The entry `bytes` hold; an error for a cut-off, altered or foreign file.
    public init(decoding bytes: [UInt8]) throws(DecodingError) {
        let members: [String: String]
        do {
            members = try FlatJSONObject.parse(bytes, maxBytes: Self.maxEncodedBytes)
        } catch {
            throw DecodingError(reason: bytes.isEmpty ? "the file is empty" : "not a complete entry (\(error))")
        }
        guard members["version"] == "1" else { throw DecodingError(reason: "not an entry of this version") }
        func required(_ name: String) throws(DecodingError) -> String {
            guard let value = members[name] else { throw DecodingError(reason: "no \(name)") }
            return value
        }
        func number<N: FixedWidthInteger>(_ name: String, _ type: N.Type) throws(DecodingError) -> N {
            guard let value = N(try required(name)) else { throw DecodingError(reason: "\(name) is not a number") }
            return value
        }
        guard let kind = UploadEvent.Kind(rawValue: try required("kind")) else { throw DecodingError(reason: "unknown kind") }
        let path = try required("path")
        guard !path.isEmpty else { throw DecodingError(reason: "an empty path") }
        var method: UploadMethod?
        if let name = members["method"] {
            guard let known = UploadMethod(rawValue: name) else { throw DecodingError(reason: "unknown method") }
            method = known
        }
        var expected: UInt64?
        if members["expected_size"] != nil { expected = try number("expected_size", UInt64.self) }
        event = UploadEvent(
            kind: kind, uploadID: 0, path: path, size: try number("size", UInt64.self), expectedSize: expected,
            client: try required("client"), method: method, time: try number("time", Int64.self),
            reason: members["reason"], sha256: members["sha256"])
        attempts = try number("attempts", Int.self)
        notBefore = try number("not_before", Int64.self)
    }
}

/// Names of pending-run entries: `<time>-<sequence>-<instance>.run`, fixed-width decimal,
/// so that sorting names sorts runs by when they were queued. `instance` tells the daemons
/// sharing a save directory apart (a random word per start), so their names never collide.
public struct PendingRunNames: Sendable {
    public static let suffix = ".run"
    public let instance: String
    private var lastTime: Int64 = 0
    private var sequence: UInt64 = 0

    public init(instance: String) {
        self.instance = instance
    }

    /// The next name at `time` (nanoseconds since 1970): never before the previous one, also
    /// when the wall clock steps back.
    public mutating func next(time: Int64) -> String {
        lastTime = max(lastTime, time)
        sequence += 1
        return Self.padded(lastTime, width: 20) + "-" + Self.padded(Int64(truncatingIfNeeded: sequence), width: 12) + "-"
            + instance + Self.suffix
    }

    public static func isEntry(_ name: String) -> Bool {
        name.hasSuffix(suffix) && !name.hasPrefix(".")
    }

    private static func padded(_ value: Int64, width: Int) -> String {
        let digits = String(max(value, 0))
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
