/// Durations as people write them in configuration: `10s`, `500ms`, `2m`, `1h`.
/// A bare number is seconds.
public enum DurationText {
    private static let units: [(name: String, milliseconds: Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]

    /// The duration `text` names, or nil when it is not one or exceeds what an Int64 of
    /// milliseconds can hold.
    public static func parse(_ text: String) -> Duration? {
        let digits = text.prefix(while: { $0.isASCII && $0.isNumber })
        let unitName = text[digits.endIndex...]
        guard !digits.isEmpty, let number = Int64(digits) else { return nil }
        let scale: Int64
        if unitName.isEmpty {
            scale = 1000
        } else if let unit = units.first(where: { $0.name == unitName.lowercased() }) {
            scale = unit.milliseconds
        } else {
            return nil
        }
        let (milliseconds, overflow) = number.multipliedReportingOverflow(by: scale)
        return overflow ? nil : .milliseconds(milliseconds)
    }

    /// The largest whole unit that spells `duration` exactly: 10 seconds -> "10s".
    public static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        for unit in units.reversed() where milliseconds != 0 && milliseconds % unit.milliseconds == 0 {
            return "\(milliseconds / unit.milliseconds)\(unit.name)"
        }
        return "\(milliseconds)ms"
    }
}
