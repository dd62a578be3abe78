/// Limits that keep one connection's memory and time bounded whatever the client sends.
public struct HTTPLimits: Sendable, Equatable {
    /// Request line plus header section, in bytes (431 beyond).
    public var maxHeadSize: Int = 16 * 1024
    /// Header field lines (431 beyond).
    public var maxHeaderCount: Int = 100
    /// Request-target length in bytes (414 beyond).
    public var maxURILength: Int = 8 * 1024
    /// A chunk-size line including extensions, and the trailer section, in bytes.
    public var maxChunkLineSize: Int = 4 * 1024
    public var maxTrailerSize: Int = 8 * 1024

    public init() {}
}

/// Formats byte counts for people: 1536 -> "1.5 KiB".
public enum ByteCount {
    public static func format(_ bytes: UInt64) -> String {
        guard bytes >= 1024 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let (tenths, unit) = scaled(bytes)
        return tenths % 10 == 0 ? "\(tenths / 10) \(units[unit])" : "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    private static let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]

    /// `bytes` (at least 1 KiB) in tenths of its unit, and the unit's index in `units`.
    private static func scaled(_ bytes: UInt64) -> (tenths: UInt64, unit: Int) {
        var divisor: UInt64 = 1024
        var unit = 0
        while unit < units.count - 1, bytes / divisor >= 1024 {
            divisor *= 1024
            unit += 1
        }
        // Integer arithmetic: the core does not link libm.
        return ((bytes / divisor) * 10 + (bytes % divisor) * 10 / divisor, unit)
    }

    /// The same number for two sizes exactly when `format` writes them the same: a key to
    /// keep each text once (`PageText.SizeTexts`).
    public static func shownKey(_ bytes: UInt64) -> UInt64 {
        guard bytes >= 1024 else { return bytes }
        let (tenths, unit) = scaled(bytes)
        return 1024 + tenths * 8 + UInt64(unit)
    }
}
