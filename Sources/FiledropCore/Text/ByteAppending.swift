/// Appending text and numbers to byte buffers without building Strings first, for lines
/// written once per request (the access log).
extension [UInt8] {
    /// Appends the UTF-8 of `text`, copied in one piece when it is contiguous (native strings
    /// and literals are).
    public mutating func appendUTF8(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        if copied == nil { append(contentsOf: text.utf8) }
    }

    /// Appends `value` in decimal, as `String(value)` writes it.
    public mutating func appendDecimal(_ value: UInt64) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            append(0x30 + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
