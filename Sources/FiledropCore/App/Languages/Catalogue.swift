/// One language's catalogue as read from the web root: a flat JSON object of keys and texts
/// (`FlatJSONObject`). Plurals are `key.one` and `key.other`; placeholders are `{name}`.
public enum Catalogue {
    /// The `{name}` placeholders of a text, for checking that translations keep English's.
    public static func placeholders(in text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// A catalogue file's strings, or why it cannot be used.
    public static func parse(_ bytes: [UInt8]) throws(FlatJSONObject.ParseError) -> [String: String] {
        try FlatJSONObject.parse(bytes)
    }
}
