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
}
