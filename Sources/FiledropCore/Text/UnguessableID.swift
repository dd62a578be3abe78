/// 128 random bits as 32 lowercase hex digits: an id that is also a capability (a tus upload's
/// URL, a LocalSend session id or file token), since no one can guess it.
public enum UnguessableID {
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next() as UInt64, generator.next() as UInt64].map { value in
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// Whether `text` has the form `random()` makes; a tus URL or record name without it
    /// leads to no upload, so nothing else (`..`, a path) ever reaches the file system.
    public static func isWellFormed(_ text: Substring) -> Bool {
        text.utf8.count == 32
            && text.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
            }
    }

    public static func isWellFormed(_ text: String) -> Bool { isWellFormed(Substring(text)) }
}
