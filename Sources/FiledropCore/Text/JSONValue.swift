/// One JSON value (RFC 8259) as a small tree, for the few bodies the server reads that are more
/// than a flat object of strings (LocalSend's `prepare-upload`, `register` and multicast
/// announcements). `JSONValue.parse` is bounded: a byte over `maxBytes` or a nesting deeper than
/// `maxDepth` is an error before any of it is kept, so a hostile body costs its size and nothing more.
/// Numbers keep their text: a file size of 2^63 - 1 must not round through a Double.
public indirect enum JSONValue: Sendable, Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    /// The number as written (RFC 8259 §6 grammar checked).
    case number(String)
    case bool(Bool)
    case null

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    public var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { flag } else { nil }
    }

    /// A whole number without fraction or exponent that fits an Int64; nil otherwise.
    public var integerValue: Int64? {
        if case .number(let text) = self { Int64(text) } else { nil }
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    public var isNull: Bool { self == .null }

    /// Nesting allowed by default: LocalSend's deepest body is three objects down.
    public static let defaultMaxDepth = 8

    public static func parse(
        _ bytes: some Collection<UInt8>, maxBytes: Int,
        maxDepth: Int = defaultMaxDepth
    ) throws(FlatJSONObject.ParseError) -> JSONValue {
        guard bytes.count <= maxBytes else {
            throw FlatJSONObject.ParseError(offset: maxBytes, reason: "more than \(maxBytes) bytes")
        }
        var reader = JSONScanner(bytes: Array(bytes), maxDepth: maxDepth)
        return try reader.document()
    }
}
