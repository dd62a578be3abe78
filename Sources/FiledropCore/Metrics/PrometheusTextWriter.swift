/// Writes the Prometheus text exposition format, version 0.0.4 (prometheus.io "Exposition
/// formats"): per family one `# HELP` and one `# TYPE` line, then its samples, each
/// `name{label="value",...} number`. Label values escape `\`, `"` and line feeds; HELP text
/// escapes `\` and line feeds. Names and label names are ours, never a client's: they are
/// checked in debug builds only.
public struct PrometheusTextWriter {
    public enum FamilyType: String, Sendable {
        case counter, gauge, histogram
    }

    public private(set) var bytes: [UInt8] = []

    public init() {
        bytes.reserveCapacity(16 * 1024)
    }

    /// The content type of what this writes.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Starts the family `name`: its HELP and TYPE lines.
    public mutating func family(_ name: String, _ type: FamilyType, help: String) {
        assert(Self.isValidName(name), "metric name \(name)")
        append("# HELP \(name) ")
        for byte in help.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
        append("\n# TYPE \(name) \(type.rawValue)\n")
    }

    /// One sample of an integer value.
    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: UInt64) {
        sampleStart(name, labels)
        append(String(value))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// One sample of a signed integer value (a gauge that may be read mid-change).
    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Int) {
        sampleStart(name, labels)
        append(String(value))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// One sample of a real value: `+Inf`, `-Inf` and `NaN` as the format spells them.
    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        sampleStart(name, labels)
        append(Self.format(value))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The format's float syntax (Go's ParseFloat reads Swift's shortest round-trip form).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return String(value)
    }

    private mutating func sampleStart(_ name: String, _ labels: KeyValuePairs<String, String>) {
        assert(Self.isValidName(name), "metric name \(name)")
        append(name)
        if !labels.isEmpty {
            bytes.append(UInt8(ascii: "{"))
            for (index, label) in labels.enumerated() {
                assert(Self.isValidName(label.key) && !label.key.contains(":"), "label name \(label.key)")
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                append(label.key)
                append("=\"")
                appendEscapedLabelValue(label.value)
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: " "))
    }

    private mutating func appendEscapedLabelValue(_ value: String) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`, the data model's rule for metric names.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":")
        }
    }
}
